import DequeModule
import Synchronization
import Upstreams

/// Linking to one Firebase account happens one Kakao user at a time (docs/api.md#linking-to-an-existing-firebase-account):
/// of two Kakao users linking to the same account at once, the second sees the first's `kakao_id` and gets
/// `account_conflict`. Keyed by the account's uid; waiters go in arrival order. In this process only, for now: the shared
/// state store makes it fleet-wide. Outlives reloads (`BridgeEnvironment`), so a SIGHUP mid-link cannot let a second
/// link in beside it.
public final class LinkLocks: Sendable {
    /// A key is present while someone holds it; its queue holds the callers waiting for it.
    private let held = Mutex<[String: Deque<CheckedContinuation<Void, Never>>]>([:])

    public init() {}

    /// Runs `body` while holding `key`. A waiter is not cancelled: what it waits for is bounded by upstream deadlines.
    func serialized<T: Sendable>(_ key: String, _ body: () async throws(Problem) -> T) async throws(Problem) -> T {
        await acquire(key)
        defer { release(key) }
        return try await body()
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
