import ArgumentParser
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import KakaoBridge

/// What both executables do first in `main`, before they parse a word of the command line.
public enum ProcessStart {
    public static func prepare(name: String) {
        // A closed stdout (`kakao-bridge demo | head`) must end the output, not the process.
        signal(SIGPIPE, SIG_IGN)
        // SIGHUP reloads, once `serve` has installed its handler; one that arrives earlier (a config-management run
        // racing the start) must not end the process, as the default action would. It is held off before `main`
        // already (Sources/CProcessStart/process_start.c), where the milliseconds after exec are covered too.
        do {
            try ProcessHardening.hangupHeld()
        } catch {
            Console.error("\(name): \(error)")
            exit(71)
        }
        // No libcurl build may write TLS session keys anywhere (the curl client removes it too, for library users).
        unsetenv("SSLKEYLOGFILE")
        // Once per process, before anything creates a metric: metrics made earlier would be bound to the no-op backend.
        BridgeMetrics.bootstrap()
    }

    /// Parses and runs the command line, as `AsyncParsableCommand.main` does, after `prepare`.
    public static func run<Command: AsyncParsableCommand>(_ command: Command.Type) async {
        do {
            var parsed = try Command.parseAsRoot()
            if var asyncCommand = parsed as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try parsed.run()
            }
        } catch {
            Command.exit(withError: error)
        }
    }
}
