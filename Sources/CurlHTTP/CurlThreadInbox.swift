import Synchronization

/// Where work crosses over to the curl thread. **Any thread** for the caller side (`submit`, `cancel`, `shutdown`);
/// the curl-thread side (`takeWork`, `prepareToSleep`, `finished`, `close`) is called by `CurlThreadDriver` only.
///
/// One mutex guards the `State`; each call takes it once, and a batch of jobs costs one lock and at most one wakeup.
/// Jobs are always completed outside the lock.
final class CurlThreadInbox: Sendable {
    private let state = Mutex(State())
    private let ids = Atomic<UInt64>(0)
    private let wakeSignal: WakeSignal?
    /// Set when the curl thread could not be started: every submission fails with it.
    private let startupError: HTTPClientError?

    /// An inbox whose curl thread `wakeSignal` wakes.
    init(wakeSignal: WakeSignal) {
        self.wakeSignal = wakeSignal
        self.startupError = nil
    }

    /// An inbox without a curl thread, refusing everything with `startupError`.
    init(startupError: HTTPClientError) {
        self.wakeSignal = nil
        self.startupError = startupError
        _ = state.withLock { $0.close() }
    }

    // MARK: caller side (any thread)

    func makeID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).newValue
    }

    func submit(_ job: Job) {
        submit([job])
    }

    /// One lock and at most one wakeup for all of `jobs`.
    func submit(_ jobs: [Job]) {
        guard !jobs.isEmpty else { return }
        if let startupError {
            for job in jobs { job.complete(.failure(startupError)) }
            return
        }
        switch state.withLock({ $0.submit(jobs, isCancelled: Task.isCancelled) }) {
        case .refused(let error):
            for job in jobs { job.complete(.failure(error)) }
        case .accepted(let wakeCurlThread):
            // Outside the lock: the wakeup is a syscall, and callers on other threads would spin on the lock meanwhile.
            if wakeCurlThread { wakeSignal?.signal() }
        }
    }

    func cancel(_ id: UInt64) {
        let dropped: Job? = state.withLock { state in
            switch state.cancel(id) {
            case .dropped(let job):
                return job
            case .handedToCurlThread:
                wakeSignal?.signal()
                return nil
            case .none:
                return nil
            }
        }
        dropped?.complete(.failure(.taskCancelled))
    }

    func shutdown() {
        state.withLock { state in
            if state.shutdown() { wakeSignal?.signal() }
        }
    }

    // MARK: curl-thread side

    typealias Work = State.Work

    func takeWork() -> Work {
        state.withLock { $0.takeWork() }
    }

    /// The curl thread saw the wake signal: reset it so the next wait blocks again.
    func drainWakeups() {
        wakeSignal?.drain()
    }

    /// Called right before the curl thread waits: `false` when work arrived since `takeWork`, so it must not sleep.
    func prepareToSleep() -> Bool {
        state.withLock { $0.prepareToSleep() }
    }

    func finished(_ job: Job, _ outcome: Job.Outcome) {
        finished([(job, outcome)])
    }

    /// One lock for every transfer that completed in a turn of the loop.
    func finished(_ completions: [(Job, Job.Outcome)]) {
        guard !completions.isEmpty else { return }
        state.withLock { state in
            for (job, _) in completions { state.finished(job.id) }
        }
        for (job, outcome) in completions { job.complete(outcome) }
    }

    /// Marks the inbox closed and returns jobs that arrived after the last `takeWork`.
    func close() -> [Job] {
        state.withLock { $0.close() }
    }
}
