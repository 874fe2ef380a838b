import ArgumentParser
import BridgeCommandLine

/// The README's first command: the real service when it is configured, the sandbox when it is not.
struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "start",
        abstract: "Run `serve` if a configuration is present, otherwise the `sandbox`.",
        shouldDisplay: false
    )

    @OptionGroup var options: ConfigOption

    func run() async throws {
        if options.isPresent {
            var serve = Serve()
            serve.options = options
            try await serve.run()
        } else {
            Console.out("kakao-bridge: no configuration found (\(options.config), BRIDGE_*): starting the built-in sandbox.")
            try SandboxExecutable.exec("sandbox", [])
        }
    }
}
