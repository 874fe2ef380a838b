import Synchronization

/// One caller at a time on a SQLite connection, across suspension points: a transaction's statements must not
/// interleave with another task's on the same connection (SQLite transactions belong to the connection, not the task).
package final class SerialAccess: Sendable {
    private struct State: ~Copyable {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    package init() {}

    package func run<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let enter = state.withLock { s in
                if s.busy {
                    s.waiters.append(continuation)
                    return false
                }
                s.busy = true
                return true
            }
            if enter { continuation.resume() }
        }
    }

    private func release() {
        // The next waiter inherits `busy`, so nobody can slip in between.
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.busy = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}
