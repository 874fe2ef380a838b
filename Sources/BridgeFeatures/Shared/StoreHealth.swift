import Synchronization
import Upstreams

/// Whether the state store answered the last time it was asked (`UnlinkMarkFollower` asks at least every second).
public final class StoreHealth: Sendable {
    private let reachable = Atomic<Bool>(true)
    private let failure = Mutex<String?>(nil)

    public init() {}

    public var isReachable: Bool { reachable.load(ordering: .relaxed) }
    /// The store's reason for the last failure, for the log and `/readyz`; never a secret.
    public var lastFailure: String? { failure.withLock { $0 } }

    /// A request that needs the store fails at once while it is known to be unreachable, rather than after the store's
    /// own timeout: Kakao's webhook wants its answer within 3 s, and a login should not hang.
    func require() throws(Problem) {
        guard isReachable else { throw Problem.stateUnavailable() }
    }

    func succeeded() {
        reachable.store(true, ordering: .relaxed)
    }

    func failed(_ reason: String) {
        failure.withLock { $0 = reason }
        reachable.store(false, ordering: .relaxed)
    }
}
