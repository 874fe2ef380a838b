import CurlHTTP
import Synchronization

/// Everything a request needs that comes from configuration. Replaced as a whole on reload (SIGHUP), so a request sees
/// one consistent state from start to end.
public struct BridgeState: Sendable {
    public let config: BridgeConfig
    let kakao: any KakaoVerifying
    let minter: CustomTokenMinter
    let identityToolkit: (any IdentityToolkitExchanging)?
    let backend: (any BackendCompleting)?
    /// Present exactly when the hook is enabled (`hook.secret` set).
    let idTokens: (any IDTokenVerifying)?
    let hookSecret: [UInt8]

    init(
        config: BridgeConfig, kakao: any KakaoVerifying, minter: CustomTokenMinter,
        identityToolkit: (any IdentityToolkitExchanging)?, backend: (any BackendCompleting)?,
        idTokens: (any IDTokenVerifying)?
    ) {
        self.config = config
        self.kakao = kakao
        self.minter = minter
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.idTokens = idTokens
        self.hookSecret = Array(config.hook.secret.utf8)
    }
}

/// Holds the current `BridgeState`; `nil` until configuration and key are loaded (then `/readyz` and every route say `not_ready`).
public final class StateHolder: Sendable {
    private let state: Mutex<BridgeState?>
    private let draining = Atomic<Bool>(false)

    public init(_ state: BridgeState?) { self.state = Mutex(state) }

    public var current: BridgeState? { state.withLock { $0 } }

    public func replace(_ newState: BridgeState) { state.withLock { $0 = newState } }

    /// Set on SIGTERM so that `/readyz` turns 503 at once while in-flight requests finish.
    public var isDraining: Bool {
        get { draining.load(ordering: .relaxed) }
        set { draining.store(newValue, ordering: .relaxed) }
    }

    func require() throws(Problem) -> BridgeState {
        guard let state = current else { throw Problem.notReady("Configuration or key not loaded.") }
        return state
    }
}
