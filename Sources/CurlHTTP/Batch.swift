import Synchronization

/// Collects the outcomes of requests sent together and resumes their one caller when the last is in: a caller that
/// needs several answers suspends once, instead of spawning a child task per request that each suspends and resumes.
/// **Any thread**: the caller waits on it, the curl thread (or a refusing caller) delivers into it, under its mutex.
final class Batch: Sendable {
    struct Completion: Sendable {
        var outcome: Job.Outcome
        var finishedAt: ContinuousClock.Instant
    }

    private struct State {
        var completions: [Completion?]
        var remaining: Int
        var continuation: CheckedContinuation<[Completion], Never>?
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(completions: Array(repeating: nil, count: count), remaining: count))
    }

    /// Set before any request is submitted, so a completion can never find no one to resume.
    func wait(with continuation: CheckedContinuation<[Completion], Never>) {
        state.withLock { $0.continuation = continuation }
    }

    func deliver(_ index: Int, _ outcome: Job.Outcome) {
        let completion = Completion(outcome: outcome, finishedAt: .now)
        let done: (CheckedContinuation<[Completion], Never>, [Completion])? = state.withLock { state in
            guard state.completions[index] == nil else { return nil }
            state.completions[index] = completion
            state.remaining -= 1
            guard state.remaining == 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, state.completions.map { $0! })
        }
        if let (continuation, completions) = done { continuation.resume(returning: completions) }
    }
}
