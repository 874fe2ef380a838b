import ArgumentParser
import BridgeCommandLine
import BridgeSupport
import BuildVersion

/// Kept tiny on purpose: the application is composed in `KakaoBridge.buildApplication`, which the tests call too. This
/// binary is what production runs; it links no stand-in (the sandbox is `kakao-bridge-sandbox`, `SandboxExecutable`).
@main
struct KakaoBridgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kakao-bridge",
        abstract: "Signs Kakao Login users into Firebase Authentication and your backend.",
        discussion: """
            With no subcommand: runs `serve` when a configuration is present (the --config file, default \
            config/bridge.yaml, or BRIDGE_* variables), otherwise the built-in `sandbox`.
            """,
        // `kakao-bridge --version`: the release and the commit of this build (docs/operations.md#versions).
        version: "kakao-bridge \(BuildVersion.description)",
        subcommands: [Start.self, Serve.self, SandboxForward.self, DemoForward.self, CheckConfig.self, Unlinks.self, Health.self],
        defaultSubcommand: Start.self
    )

    static func main() async {
        ProcessStart.prepare(name: "kakao-bridge")
        await ProcessStart.run(Self.self)
    }
}

/// `kakao-bridge sandbox …`: runs `kakao-bridge-sandbox sandbox …`.
struct SandboxForward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox",
        abstract: "Run the service against built-in local stand-ins for Kakao, Google and a backend (no accounts needed).",
        discussion: "Runs kakao-bridge-sandbox from the same directory; `kakao-bridge-sandbox sandbox --help` lists its options."
    )

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { try SandboxExecutable.exec("sandbox", arguments) }
}

/// `kakao-bridge demo …`: runs `kakao-bridge-sandbox demo …`.
struct DemoForward: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Walk the six steps against the sandbox and print each one; exit 0 only if every step behaved.",
        discussion: "Runs kakao-bridge-sandbox from the same directory."
    )

    @Argument(parsing: .captureForPassthrough) var arguments: [String] = []

    func run() throws { try SandboxExecutable.exec("demo", arguments) }
}
