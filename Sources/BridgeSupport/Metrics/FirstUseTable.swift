import Synchronization

/// Values made on first use and kept, for metrics whose label values are known only when seen (a route, an upstream's
/// outcome): `/metrics` then shows only what happened. `make` runs outside the lock; when two callers race, the first
/// value stored wins, so everyone counts on the same one.
package final class FirstUseTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let made = Mutex<[Key: Value]>([:])

    package init() {}

    package func value(for key: Key, make: () -> Value) -> Value {
        if let known = made.withLock({ $0[key] }) { return known }
        let fresh = make()
        return made.withLock { table in
            if let raced = table[key] { return raced }
            table[key] = fresh
            return fresh
        }
    }
}
