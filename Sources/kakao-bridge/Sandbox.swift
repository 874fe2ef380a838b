import ArgumentParser

struct Sandbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the service against built-in local stand-ins for Kakao, Google and a backend (no accounts needed)."
    )

    func run() async throws {
        Console.error("sandbox: not built yet")
        throw ExitCode.failure
    }
}
