import Synchronization

/// Back-pressure: at most `limit` calls to one upstream at once. Past it, callers fail fast instead of queueing without bound,
/// and the gate opens again by itself as calls finish.
package final class InFlightGate: Sendable {
    private let limit: Int
    private let count = Atomic<Int>(0)

    package init(limit: Int) { self.limit = max(1, limit) }

    package func tryEnter() -> Bool {
        let after = count.add(1, ordering: .relaxed).newValue
        if after > limit {
            count.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    package func leave() { count.subtract(1, ordering: .relaxed) }

    package var inFlight: Int { count.load(ordering: .relaxed) }
}
