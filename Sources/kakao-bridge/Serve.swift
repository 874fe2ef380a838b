import ArgumentParser
import BridgeCommandLine
import BridgeFeatures
import BridgeSupport
import CurlHTTP
import Hummingbird
import KakaoBridge
import Logging
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
        let logger = Logger.bridge(level: config.log.level, format: config.log.format)
        let http = CurlHTTPClient()
        defer { http.shutdown() }
        let reload = BridgeEnvironment.Reload(configPath: options.config) { BridgeUpstreams.live($0, http: http) }
        let app: BridgeApplication
        do {
            var environment = BridgeEnvironment(logger: logger, reload: reload)
            environment.shared = try await SharedState.open(config, logger: logger)
            app = try buildApplication(config: config, upstreams: .live(config, http: http), environment: environment)
        } catch {
            Console.error("kakao-bridge: cannot start: \(error)")
            throw ExitCode(78)
        }
        try await app.runUntilTerminated(graceSeconds: config.server.shutdownGraceSeconds)
    }
}
