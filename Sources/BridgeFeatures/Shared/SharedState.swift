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
    /// Whether the store answers (`/readyz`, the gauge, and the requests that need it).
    public let health: StoreHealth
    let clock: UnixClock

    public init(store: any StateStore, isDurable: Bool, clock: UnixClock = .system) {
        self.store = store
        self.isDurable = isDurable
        self.instanceID = Base64URL.encode(SecureRandom.bytes(count: 12))
        self.unlinkedUsers = UnlinkedKakaoUsers(clock: clock)
        self.generatedNonceSecret = SecureRandom.bytes(count: 32)
        // Memory always answers; a database has to, once, before the instance is ready.
        self.health = StoreHealth(answered: !isDurable)
        self.linkLocks = LinkLocks(store: store, health: health, owner: instanceID, clock: clock)
        self.clock = clock
    }

    /// This process's memory: the sandbox and the tests.
    public static func inMemory(clock: UnixClock = .system) -> SharedState {
        SharedState(store: MemoryStateStore(clock: clock), isDurable: false, clock: clock)
    }
}

extension SharedState {
    /// How long one store operation of a request may take: then the request answers 503 `state_unavailable` and the
    /// store counts as unreachable (docs/operations.md#shared-state).
    public static let storeLimit: Duration = .seconds(5)

    /// The one way a request uses the store (`StoreHealth.call`).
    func withStore<T: Sendable>(
        _ what: String, within limit: Duration = storeLimit,
        _ body: @escaping @Sendable (any StateStore) async throws(StateStoreError) -> T
    ) async throws(StateStoreError) -> T {
        try await health.call(store, what, within: limit, body)
    }
}

extension StateStoreError {
    /// What a request that needs the store answers when it fails: 503 `state_unavailable`, the store's reason logged
    /// by the caller, never sent.
    var problem: Problem { .stateUnavailable() }
}
