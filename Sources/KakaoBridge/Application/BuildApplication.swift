import CurlHTTP
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// What `buildApplication` needs besides configuration; tests and the sandbox pass their own.
public struct BridgeEnvironment: Sendable {
    public var logger: Logger
    public var clock: UnixClock
    /// Called with the bound port once the server listens (tests bind port 0).
    public var onServerRunning: @Sendable (Int) async -> Void
    /// The file SIGHUP reloads; `nil` when the configuration did not come from a file (tests, sandbox).
    public var configPath: String?

    public init(
        logger: Logger, clock: UnixClock = .system, configPath: String? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.logger = logger
        self.clock = clock
        self.configPath = configPath
        self.onServerRunning = onServerRunning
    }
}

/// The composition root: `serve`, `sandbox` and the tests all run the application built here.
public func buildApplication(
    config: BridgeConfig, environment: BridgeEnvironment
) throws -> some ApplicationProtocol {
    let http = CurlHTTPClient()
    let assembly = BridgeAssembly(http: http, clock: environment.clock)
    let state: BridgeState
    do {
        state = try assembly.makeState(config, logger: environment.logger)
    } catch {
        http.shutdown()
        throw error
    }
    let holder = StateHolder(state)
    let router = buildRouter(holder: holder, logger: environment.logger)
    let onServerRunning = environment.onServerRunning
    return Application(
        router: router,
        configuration: .init(address: .hostname(config.server.host, port: config.server.port), serverName: nil),
        services: [HTTPClientService(http: http)],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: environment.logger
    )
}

func buildRouter(holder: StateHolder, logger: Logger) -> Router<BridgeRequestContext> {
    let router = Router(context: BridgeRequestContext.self)
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: ProblemMiddleware())
    TokenExchangeController(holder: holder).register(on: router)
    LegacyController(holder: holder).register(on: router)
    LoginCompleteController(holder: holder).register(on: router)
    HealthController(holder: holder).register(on: router)
    return router
}

/// Keeps the shared HTTP client alive while the application runs and stops its thread on shutdown.
struct HTTPClientService: Service {
    let http: CurlHTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        http.shutdown()
    }
}
