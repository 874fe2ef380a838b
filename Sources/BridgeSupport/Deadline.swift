import Synchronization

/// Thrown by `withDeadline` when the work has not finished within its limit.
public struct DeadlinePassed: Error, Sendable, Equatable {
    public let limit: Duration
}

/// The work's result when it finishes within `limit`; otherwise `DeadlinePassed` at the limit, at once. The work is then
/// cancelled and left to end on its own, never awaited: a task group would wait for it, and a database query that
/// ignores cancellation would hold its caller for as long as the database hangs (docs/operations.md#shared-state).
/// Cancelling the caller cancels the work and throws `CancellationError` at once, likewise.
public func withDeadline<T: Sendable>(
    _ limit: Duration, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.start(continuation, limit: limit, work: work)
        }
    } onCancel: {
        race.finish(.failure(CancellationError()))
    }
}

/// The first of the work, the timer and the caller's cancellation to finish resumes the caller; the others are dropped.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var work: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var finished = false
        /// What finished before the continuation was there (a caller cancelled before it started).
        var early: Result<T, any Error>?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<T, any Error>, limit: Duration, work: @escaping @Sendable () async throws -> T) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if state.finished { return state.early }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(with: early)
            return
        }
        let worker = Task {
            do {
                self.finish(.success(try await work()))
            } catch {
                self.finish(.failure(error))
            }
        }
        let timer = Task {
            do { try await Task.sleep(for: limit) } catch { return }
            self.finish(.failure(DeadlinePassed(limit: limit)))
        }
        let finishedMeanwhile = state.withLock { state -> Bool in
            if state.finished { return true }
            state.work = worker
            state.timer = timer
            return false
        }
        if finishedMeanwhile {
            worker.cancel()
            timer.cancel()
        }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, worker, timer) = state.withLock { state in
            if state.finished { return (nil, nil, nil) as (CheckedContinuation<T, any Error>?, Task<Void, Never>?, Task<Void, Never>?) }
            state.finished = true
            if state.continuation == nil { state.early = result }
            defer {
                state.continuation = nil
                state.work = nil
                state.timer = nil
            }
            return (state.continuation, state.work, state.timer)
        }
        worker?.cancel()
        timer?.cancel()
        continuation?.resume(with: result)
    }
}
