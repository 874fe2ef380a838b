import ArgumentParser

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk the six steps against the sandbox and print each; exits 0 only if every step behaved."
    )

    func run() async throws {
        Console.error("demo: not built yet")
        throw ExitCode.failure
    }
}
