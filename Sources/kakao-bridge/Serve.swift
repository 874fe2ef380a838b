import ArgumentParser
import BridgeCommandLine
import BridgeFeatures
import BridgeSupport
import CurlHTTP
import Hummingbird
import KakaoBridge
import Logging
import ServiceLifecycle
import StateStore
import Upstreams

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the service with the given configuration (docs/configuration.md). SIGTERM drains and exits; SIGHUP reloads.",
        discussion: """
            SIGTERM or SIGINT: /readyz turns 503 at once, the listener closes, requests in flight get \
            server.shutdown_grace_seconds to finish, then the process exits 0. SIGHUP: the configuration file and the \
            service-account file are read again and swapped in; a bad reload keeps the running state and logs why.
            """
    )

    @OptionGroup var options: ConfigOption

    func run() async throws {
        // Before the configuration and the key are read: no core dump may hold them.
        try ProcessHardening.applyOrExit()
        MallocArenas.limit()
        let config = try options.load()
        // Before anything starts or logs: a port another process holds is one line and EX_CONFIG, like a bad key.
        if let refusal = await ListenCheck.refusal(config) {
            Console.error("kakao-bridge: \(refusal)")
            throw ExitCode(78)
        }
        let logger = Logger.bridge(level: config.log.level, format: config.log.format)
        let http = CurlHTTPClient()
        defer { http.shutdown() }
        let reload = BridgeEnvironment.Reload(configPath: options.config) { BridgeUpstreams.live($0, http: http) }
        let app: BridgeApplication
        let shared: SharedState
        do {
            // PostgreSQL's pool retries every second and logs each failure: its cause is said once, at warning.
            shared = try await SharedState.open(config, logger: StoreConnectionWatch().watching(logger, report: true))
        } catch {
            Console.error("kakao-bridge: cannot start: \(error)")
            throw ExitCode(78)
        }
        // Before the first request: the tracer is bootstrapped once per process (docs/operations.md#tracing).
        let tracing: (any Service)?
        do {
            tracing = try OTLPTracing.bootstrap(config.tracing, logger: logger)
        } catch {
            Console.error("kakao-bridge: cannot start: tracing: \(error)")
            await shared.store.close()
            throw ExitCode(78)
        }
        do {
            var environment = BridgeEnvironment(logger: logger, reload: reload)
            environment.shared = shared
            app = try buildApplication(config: config, upstreams: .live(config, http: http), environment: environment)
        } catch {
            Console.error("kakao-bridge: cannot start: \(error)")
            await shared.store.close()
            throw ExitCode(78)
        }
        // The store is closed once the service has stopped (a SQLite file's connection must be closed before it goes).
        do {
            try await app.runUntilTerminated(graceSeconds: config.server.shutdownGraceSeconds, alongside: tracing.map { [$0] } ?? [])
        } catch {
            await shared.store.close()
            throw error
        }
        await shared.store.close()
    }
}
