import Synchronization

/// Runs `work` in a task of its own and waits for it, but returns `nil` at once when the waiting task is cancelled
/// (shutdown during a reload): work that is shielded from cancellation on purpose (a shared fetch) must not hold up
/// the one caller that no longer needs it.
func unlessCancelled<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T? {
    let slot = ResumeOnce<T?>()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            slot.set(continuation)
            Task {
                let value = await work()
                slot.resume(value)
            }
        }
    } onCancel: {
        slot.resume(nil)
    }
}

/// A continuation resumed by whichever comes first; later resumes are ignored.
private final class ResumeOnce<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, Never>?
        /// A value that came before the continuation was set.
        var early: [T] = []
        var done = false
    }

    private let state = Mutex(State())

    func set(_ continuation: CheckedContinuation<T, Never>) {
        let early = state.withLock { state -> T? in
            guard state.done else {
                state.continuation = continuation
                return nil
            }
            return state.early.first
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ value: T) {
        let continuation = state.withLock { state -> CheckedContinuation<T, Never>? in
            guard !state.done else { return nil }
            state.done = true
            guard let continuation = state.continuation else {
                state.early = [value]
                return nil
            }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: value)
    }
}
