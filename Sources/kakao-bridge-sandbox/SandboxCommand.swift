import ArgumentParser
import BridgeCommandLine
import BridgeSupport
import BuildVersion

/// The sandbox and the demo, in a binary of their own so that the production binary (`kakao-bridge`) links no stand-in.
/// `kakao-bridge sandbox`, `kakao-bridge demo` and `kakao-bridge` with no configuration run this one.
@main
struct SandboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kakao-bridge-sandbox",
        abstract: "kakao-bridge against built-in local stand-ins for Kakao, Google and a backend: no accounts needed.",
        version: "kakao-bridge-sandbox \(BuildVersion.description)",
        subcommands: [Sandbox.self, Demo.self],
        defaultSubcommand: Sandbox.self
    )

    static func main() async {
        ProcessStart.prepare(name: "kakao-bridge-sandbox")
        await ProcessStart.run(Self.self)
    }
}
