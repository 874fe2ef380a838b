import BridgeFeatures
import BridgeSupport
import Logging
import NIOCore
import Upstreams

/// What `buildApplication` needs besides configuration and upstreams; `serve`, the sandbox and the tests pass their own.
public struct BridgeEnvironment: Sendable {
    /// SIGHUP reloads the configuration from `configPath` and makes new upstreams for it.
    public struct Reload: Sendable {
        public var configPath: String
        public var upstreams: @Sendable (BridgeConfig) -> BridgeUpstreams

        public init(configPath: String, upstreams: @escaping @Sendable (BridgeConfig) -> BridgeUpstreams) {
            self.configPath = configPath
            self.upstreams = upstreams
        }
    }

    public var logger: Logger
    public var clock: UnixClock
    /// Called with the bound port once the server listens (tests bind port 0).
    public var onServerRunning: @Sendable (Int) async -> Void
    /// The same for the admin port, when `server.admin_port` is set.
    public var onAdminRunning: @Sendable (Int) async -> Void = { _ in }
    /// `nil` when the configuration did not come from a file (tests, sandbox): SIGHUP is then ignored.
    public var reload: Reload?
    /// What the features keep beyond one request: the state store and this process's side of it; outlives reloads.
    public var shared: SharedState
    /// Logins admitted past the router at once (`RequestAdmission`): by default 64 per core; tests set their own.
    public var loginAdmissionLimit: Int

    public init(
        logger: Logger, clock: UnixClock = .system, reload: Reload? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.logger = logger
        self.clock = clock
        self.reload = reload
        self.onServerRunning = onServerRunning
        self.shared = SharedState.inMemory(clock: clock)
        self.loginAdmissionLimit = RequestAdmission.limit(cores: System.coreCount)
    }
}
