import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import KakaoBridge

/// Kept tiny on purpose: the application is composed in `KakaoBridge.buildApplication`, which the tests call too.
@main
struct KakaoBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kakao-bridge",
        abstract: "Signs Kakao Login users into Firebase Authentication and your backend.",
        discussion: """
            With no subcommand: runs `serve` when a configuration is present (the --config file, default \
            config/bridge.yaml, or BRIDGE_* variables), otherwise the built-in `sandbox`.
            """,
        subcommands: [Start.self, Serve.self, Sandbox.self, Demo.self, CheckConfig.self],
        defaultSubcommand: Start.self
    )

    static func main() async {
        // A closed stdout (`kakao-bridge demo | head`) must end the output, not the process.
        signal(SIGPIPE, SIG_IGN)
        // SIGHUP reloads, once `serve` has installed its handler; one that arrives earlier (a config-management run
        // racing the start) must not end the process, as the default action would. It is held off before `main`
        // already (Sources/CProcessStart/process_start.c), where the milliseconds after exec are covered too.
        do {
            try ProcessHardening.hangupHeld()
        } catch {
            Console.error("kakao-bridge: \(error)")
            exit(withError: ExitCode(71))
        }
        // No libcurl build may write TLS session keys anywhere (the curl client removes it too, for library users).
        unsetenv("SSLKEYLOGFILE")
        // Once per process, before anything creates a metric: metrics made earlier would be bound to the no-op backend.
        BridgeMetrics.bootstrap()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
