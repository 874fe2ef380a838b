import BridgeSupport
import DequeModule
import StateStore
import Synchronization
import Upstreams

/// Linking to one Firebase account happens one Kakao user at a time (docs/api.md#linking-to-an-existing-firebase-account):
/// of two Kakao users linking to the same account at once, the second sees the first's `kakao_id` and gets
/// `account_conflict`. Keyed by the account's uid. Within this process waiters go in arrival order; across the fleet the
/// holder also takes the key's lease in the state store (docs/operations.md#shared-state), polling while another instance
/// holds it. Outlives reloads (`SharedState`), so a SIGHUP mid-link cannot let a second link in beside it.
public final class LinkLocks: Sendable {
    /// Longer than a link takes (a few Admin API calls, each bounded by `upstream.timeout_ms`); a holder that died frees
    /// the key after it.
    static let leaseSeconds: Int64 = 60
    /// How long a link waits for another instance's before it answers 503 `state_unavailable`.
    static let waitLimit: Duration = .seconds(10)

    /// A key is present while someone holds it; its queue holds the callers waiting for it.
    private let held = Mutex<[String: Deque<CheckedContinuation<Void, Never>>]>([:])
    private let store: any StateStore
    private let health: StoreHealth
    private let owner: String
    private let clock: UnixClock

    init(store: any StateStore, health: StoreHealth, owner: String, clock: UnixClock) {
        self.store = store
        self.health = health
        self.owner = owner
        self.clock = clock
    }

    /// One process alone, with its memory for a store (tests).
    static func inMemory() -> LinkLocks { LinkLocks(store: MemoryStateStore(), health: StoreHealth(), owner: "local", clock: .system) }

    /// Runs `body` while holding `key` in this process and in the store. A waiter here is not cancelled: what it waits
    /// for is bounded by upstream deadlines and `waitLimit`.
    func serialized<T: Sendable>(_ key: String, _ body: () async throws(Problem) -> T) async throws(Problem) -> T {
        await acquire(key)
        defer { release(key) }
        try await acquireInStore(key)
        let result: Result<T, Problem>
        do throws(Problem) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        // A release that fails leaves the lease to expire: the next link waits, it is not let in early.
        let owner = self.owner
        try? await health.call(store, "release link lock", within: SharedState.storeLimit) { store throws(StateStoreError) in
            try await store.releaseLinkLock(key: key, owner: owner)
        }
        return try result.get()
    }

    /// Linking needs the store: while it cannot be reached, 503 `state_unavailable` at once (docs/operations.md#shared-state).
    private func acquireInStore(_ key: String) async throws(Problem) {
        let start = ContinuousClock.now
        var pause = Duration.milliseconds(20)
        let (owner, clock) = (self.owner, self.clock)
        while true {
            do {
                let acquired = try await health.call(store, "acquire link lock", within: SharedState.storeLimit) { store throws(StateStoreError) in
                    try await store.acquireLinkLock(key: key, owner: owner, leaseSeconds: Self.leaseSeconds, now: clock.now())
                }
                if acquired { return }
            } catch {
                throw error.problem
            }
            guard ContinuousClock.now - start < Self.waitLimit else {
                throw Problem.stateUnavailable("Another instance is linking to this account; retry shortly.")
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(200))
        }
    }

    /// Keys held now (tests).
    var heldCount: Int { held.withLock { $0.count } }

    private func acquire(_ key: String) async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let free = held.withLock { held -> Bool in
                guard held[key] != nil else {
                    held[key] = []
                    return true
                }
                held[key]!.append(waiter)
                return false
            }
            if free { waiter.resume() }
        }
    }

    private func release(_ key: String) {
        let next = held.withLock { held -> CheckedContinuation<Void, Never>? in
            guard let next = held[key]?.popFirst() else {
                held[key] = nil
                return nil
            }
            return next
        }
        next?.resume()
    }
}
