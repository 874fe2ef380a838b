import ArgumentParser
import BridgeCommandLine
import BridgeSupport
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import KakaoBridge
import Logging

struct Sandbox: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the service against built-in local stand-ins for Kakao, Google and a backend (no accounts needed).",
        discussion: """
            Generates a throwaway service-account key and hook secret, starts loopback stand-ins for Kakao, Identity \
            Toolkit, Google's certificate endpoint and a backend, issues sandbox Kakao tokens (valid, another app's, \
            expired) and runs the real service against them with all six steps on. Once it listens it prints where \
            everything is, the tokens and ready curl lines. Other settings come from config/sandbox.yaml. Ctrl-C or \
            SIGTERM stops the service, then the stand-ins. `--signer iam` runs it keyless, as on Google Cloud: no key \
            file; stand-ins for the metadata server and the IAM Credentials API sign instead.
            """
    )

    @Option(help: "Port the bridge listens on (0 picks a free one). Default: server.port of the defaults file, 8080.")
    var port: Int?

    @Option(help: "Address the bridge listens on. Default: server.host of the defaults file, 127.0.0.1.")
    var host: String?

    @Option(help: "The sandbox's defaults (a bridge configuration file); built-in values when it does not exist.")
    var defaults: String = SandboxDefaults.path

    @Option(help: "Who signs custom tokens: key_file (a generated key, OpenSSL) or iam (keyless: metadata server and IAM stand-ins).")
    var signer: BridgeConfig.Signer = .keyFile

    func run() async throws {
        // The sandbox's throwaway key and secret are not worth a core dump either, and it runs the same service code.
        try ProcessHardening.applyOrExit()
        let world = try await Self.startWorld(SandboxWorld.Options(defaultsPath: defaults, host: host, port: port, signer: signer))
        let config = world.config
        let logger = Logger.bridge(level: config.log.level, format: config.log.format)
        let app: BridgeApplication
        do {
            app = try world.makeApplication(logger: logger) { port in
                // A ready ID token needs a nonce from the running bridge, as an app gets one; the bridge serves requests
                // only once this callback has returned, so the banner is printed from a task of its own.
                Task {
                    if !(await world.waitUntilReady(bridgeURL: world.bridgeURL(port: port))) {
                        Console.error("kakao-bridge sandbox: the bridge is not ready after 10 s; see its log lines and /readyz")
                    }
                    let oidc = await SandboxOIDC.login(world: world, bridgeURL: world.bridgeURL(port: port), user: SandboxWorld.validUser)
                    for line in SandboxBanner.lines(world: world, port: port, oidc: oidc) { Console.out(line) }
                }
            }
        } catch {
            await world.stop()
            Console.error("kakao-bridge sandbox: cannot start the service: \(error)")
            throw ExitCode(70)
        }

        do {
            try await app.runUntilTerminated(graceSeconds: config.server.shutdownGraceSeconds)
        } catch {
            await world.stop()
            if Self.isAddressInUse(error) {
                Console.error(
                    "kakao-bridge sandbox: \(config.server.host):\(config.server.port) is already in use. "
                        + "Pick another port: kakao-bridge sandbox --port \(config.server.port == 8080 ? 8081 : 8080) (or --port 0 for any free port)."
                )
                throw ExitCode(69)
            }
            Console.error("kakao-bridge sandbox: the service stopped with an error: \(error)")
            throw ExitCode.failure
        }
        await world.stop()
        Console.out("kakao-bridge sandbox: stopped.")
    }

    /// Configuration problems exit 78 like `serve`; anything else (a stand-in that cannot bind) is reported as is.
    static func startWorld(_ options: SandboxWorld.Options) async throws -> SandboxWorld {
        do {
            return try await SandboxWorld.start(options)
        } catch let error as ConfigError {
            Console.error("kakao-bridge sandbox: invalid sandbox configuration (\(options.defaultsPath)):\n\(error.description)")
            throw ExitCode(78)
        } catch {
            Console.error("kakao-bridge sandbox: cannot start the stand-ins: \(error)")
            throw ExitCode(70)
        }
    }

    /// NIO reports a taken port as an `IOError` from bind(2); its text is the stable part across NIO versions.
    static func isAddressInUse(_ error: any Error) -> Bool {
        let text = String(describing: error)
        return text.contains("Address already in use") || text.contains("errno: \(EADDRINUSE)")
    }
}

extension BridgeConfig.Signer: ExpressibleByArgument {}
