import ArgumentParser
import BridgeCommandLine
import BridgeSupport
import CurlHTTP
import KakaoBridge
import Logging

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Walk the six steps against the sandbox and print each; exits 0 only if every step behaved.",
        discussion: """
            Starts the same sandbox as `kakao-bridge sandbox` inside this process (the bridge on a free port), then plays \
            the app: exchanges a Kakao token and shows what the bridge asked Kakao, the custom token it minted, the \
            Firebase user record the user sync wrote, the Firebase session from Identity Toolkit and the backend's \
            confirmation of the user; then three logins the bridge must refuse (another app's token, an expired token, \
            a disabled Firebase user). Tokens are always shortened. Exit 0 only if every step behaved as expected: a smoke test.
            """
    )

    @Flag(help: "Also print the bridge's own log lines (text format).")
    var verbose = false

    @Option(help: "Who signs custom tokens: key_file (a generated key) or iam (keyless, through the metadata server and IAM stand-ins).")
    var signer: BridgeConfig.Signer = .keyFile

    func run() async throws {
        let world = try await Sandbox.startWorld(SandboxWorld.Options(host: "127.0.0.1", port: 0, signer: signer))
        let logger = verbose
            ? Logger.bridge(level: world.config.log.level, format: "text")
            : Logger.bridge(level: "critical", format: "text")
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let app: BridgeApplication
        do {
            app = try world.makeApplication(logger: logger) { port in
                listening.yield(port)
                listening.finish()
            }
        } catch {
            await world.stop()
            Console.error("kakao-bridge demo: cannot start the service: \(error)")
            throw ExitCode(70)
        }
        let service = Task {
            defer { listening.finish() }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            service.cancel()
            let outcome = await service.result
            await world.stop()
            Console.error("kakao-bridge demo: the service did not start\(outcome.failureText)")
            throw ExitCode(70)
        }

        let http = CurlHTTPClient()
        if !(await world.waitUntilReady(bridgeURL: world.bridgeURL(port: port))) {
            Console.out("demo: the bridge did not turn ready within 10 s; walking anyway")
        }
        var walk = DemoWalk(world: world, bridgeURL: world.bridgeURL(port: port), http: http)
        await walk.run()

        service.cancel()
        _ = await service.result
        http.shutdown()
        await world.stop()

        if walk.failures.isEmpty {
            Console.out("demo: all six steps, the Firebase user record, the three refusals, the security event, the unlink and the three deletions behaved as expected.")
        } else {
            Console.out("demo: FAILED (\(walk.failures.count)):")
            for failure in walk.failures { Console.out("  - \(failure)") }
            throw ExitCode.failure
        }
    }
}

extension Result {
    fileprivate var failureText: String {
        if case .failure(let error) = self { return ": \(error)" }
        return ""
    }
}
