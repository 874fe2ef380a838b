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
) throws -> BridgeApplication {
    BridgeMetrics.bootstrap()
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
    let reload = ReloadService(
        holder: holder, assembly: assembly, configPath: environment.configPath, logger: environment.logger, startup: config
    )
    let application = Application(
        router: router,
        server: .http1(configuration: ServerLimits.http1()),
        configuration: .init(address: .hostname(config.server.host, port: config.server.port), serverName: nil),
        services: [HTTPClientService(http: http), reload],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: environment.logger
    )
    return BridgeApplication(inner: application, holder: holder)
}

func buildRouter(holder: StateHolder, logger: Logger) -> Router<BridgeRequestContext> {
    let router = Router(context: BridgeRequestContext.self)
    // Order matters: the access log and metrics sit outside `ProblemMiddleware` to see the status the client gets, and
    // inside `ClientAddressMiddleware` to see the real client; rate limiting throws a problem, so it sits inside.
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: ClientAddressMiddleware(holder: holder))
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: MetricsMiddleware())
    router.add(middleware: ProblemMiddleware())
    router.add(middleware: RateLimitMiddleware(holder: holder))
    TokenExchangeController(holder: holder).register(on: router)
    LegacyController(holder: holder).register(on: router)
    LoginCompleteController(holder: holder).register(on: router)
    HealthController(holder: holder).register(on: router)
    MetricsEndpoint().register(on: router)
    return router
}

/// Keeps the shared HTTP client alive while the application runs and stops its thread on shutdown.
struct HTTPClientService: Service, CustomStringConvertible {
    let http: CurlHTTPClient
    var description: String { "HTTPClientService" }

    func run() async throws {
        try? await gracefulShutdown()
        http.shutdown()
    }
}
