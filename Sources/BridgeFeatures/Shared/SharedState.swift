import BridgeSupport
import OpenSSLCrypto
import StateStore
import Upstreams

/// What the features keep beyond one request (docs/operations.md#shared-state): the state store `state.url` names, and
/// this process's side of it. Outlives every reload: a webhook that arrived before a SIGHUP still counts after it,
/// nonces issued before it stay good and used ones stay used, and a link under way still holds its account.
public final class SharedState: Sendable {
    public let store: any StateStore
    /// Whether the store outlives this process (SQLite, PostgreSQL).
    public let isDurable: Bool
    /// This process, as the owner of leases and locks in the store.
    public let instanceID: String
    /// The unlink marks of every instance, mirrored here (`UnlinkMarkFollower`), so that a cached login asks no store.
    public let unlinkedUsers: UnlinkedKakaoUsers
    /// The nonces' HMAC key while `kakao.oidc.nonce_secret` is empty: one per process.
    let generatedNonceSecret: [UInt8]
    let linkLocks: LinkLocks
    /// Whether the store answered lately; `/readyz` is 503 while it does not.
    public let health: StoreHealth
    let clock: UnixClock

    public init(store: any StateStore, isDurable: Bool, clock: UnixClock = .system) {
        self.store = store
        self.isDurable = isDurable
        self.instanceID = Base64URL.encode(SecureRandom.bytes(count: 12))
        self.unlinkedUsers = UnlinkedKakaoUsers(clock: clock)
        self.generatedNonceSecret = SecureRandom.bytes(count: 32)
        self.health = StoreHealth()
        self.linkLocks = LinkLocks(store: store, owner: instanceID, clock: clock)
        self.clock = clock
    }

    /// This process's memory: the sandbox and the tests.
    public static func inMemory(clock: UnixClock = .system) -> SharedState {
        SharedState(store: MemoryStateStore(clock: clock), isDurable: false, clock: clock)
    }
}

extension StateStoreError {
    /// What a request that needs the store answers when it fails: 503 `state_unavailable`, the store's reason logged
    /// by the caller, never sent.
    var problem: Problem { .stateUnavailable() }
}
