import Synchronization

/// Wakes every `markNotifications()` stream of one store object. Each stream keeps at most one pending wake: a wake
/// says "ask again", so two that arrive before the reader looks are one.
package final class MarkNotifier: Sendable {
    private struct Listeners: ~Copyable {
        var next = 0
        var continuations: [Int: AsyncStream<Void>.Continuation] = [:]
        var finished = false
    }

    private let listeners = Mutex(Listeners())

    package init() {}

    package func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id: Int? = listeners.withLock { state in
            guard !state.finished else { return nil }
            let id = state.next
            state.next += 1
            state.continuations[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    package func notify() {
        // Yielded outside the lock: a stream's termination handler takes it.
        let continuations = listeners.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield() }
    }

    /// Ends every stream (the store is closing).
    package func finish() {
        let continuations = listeners.withLock { state in
            state.finished = true
            let all = Array(state.continuations.values)
            state.continuations = [:]
            return all
        }
        for continuation in continuations { continuation.finish() }
    }
}
