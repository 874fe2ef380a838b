import Synchronization

/// Back-pressure: at most `limit` calls to one upstream at once. Past it, callers fail fast instead of queueing without bound,
/// and the gate opens again by itself as calls finish.
final class InFlightGate: Sendable {
    private let limit: Int
    private let count = Atomic<Int>(0)

    init(limit: Int) { self.limit = max(1, limit) }

    func tryEnter() -> Bool {
        let after = count.add(1, ordering: .relaxed).newValue
        if after > limit {
            count.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func leave() { count.subtract(1, ordering: .relaxed) }

    var inFlight: Int { count.load(ordering: .relaxed) }
}
