import ArgumentParser

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
}
