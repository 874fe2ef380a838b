extension CurlThreadInbox {
    /// What waits between the callers and the curl thread, and the rules for handing it over. Pure: the inbox keeps it
    /// under its mutex, and the tests drive it directly.
    ///
    /// Wakeups: the curl thread says when it is about to sleep (`prepareToSleep`); only a submission that finds it so
    /// asks for a wakeup, and clears the flag, so a burst of submissions costs at most one wakeup, and submissions
    /// while the thread is busy cost none (it takes new work on its next turn anyway).
    struct State {
        /// Submitted, not yet taken by the curl thread, in order.
        private(set) var queued: [Job] = []
        /// Ids handed to the curl thread and not yet completed; only these can be cancelled there.
        private(set) var live: Set<UInt64> = []
        /// Ids whose callers gave up while the curl thread held them.
        private(set) var cancelled: Set<UInt64> = []
        private(set) var stopping = false
        /// Set by the curl thread when it stops; later submissions are refused.
        private(set) var closed = false
        /// The curl thread is about to wait in the poller with nothing queued: only then does new work need a wakeup.
        private(set) var curlThreadSleeping = false

        enum Submission {
            case accepted(wakeCurlThread: Bool)
            case refused(HTTPClientError)
        }

        enum Cancellation {
            /// Still queued: it never reached the curl thread; the caller completes it.
            case dropped(Job)
            /// Held by the curl thread: it aborts the transfer on its next turn, which needs a wakeup.
            case handedToCurlThread
            /// Already done, or unknown.
            case none
        }

        struct Work {
            var jobs: [Job]
            var cancelled: Set<UInt64>
            var stopping: Bool
        }

        /// Any thread. `isCancelled` is read here, under the lock, so a cancellation racing with submission is seen
        /// either here or by `cancel(_:)`.
        mutating func submit(_ jobs: [Job], isCancelled: @autoclosure () -> Bool) -> Submission {
            if stopping || closed { return .refused(.clientShutDown) }
            if isCancelled() { return .refused(.taskCancelled) }
            queued.append(contentsOf: jobs)
            for job in jobs { live.insert(job.id) }
            defer { curlThreadSleeping = false }
            return .accepted(wakeCurlThread: curlThreadSleeping)
        }

        /// Any thread.
        mutating func cancel(_ id: UInt64) -> Cancellation {
            if let index = queued.firstIndex(where: { $0.id == id }) {
                live.remove(id)
                return .dropped(queued.remove(at: index))
            }
            guard live.contains(id), !closed else { return .none }
            cancelled.insert(id)
            curlThreadSleeping = false
            return .handedToCurlThread
        }

        /// Any thread. `true` the first time: the curl thread must be woken to stop.
        mutating func shutdown() -> Bool {
            guard !stopping, !closed else { return false }
            stopping = true
            return true
        }

        /// Curl thread: everything submitted and cancelled since the last turn.
        mutating func takeWork() -> Work {
            curlThreadSleeping = false
            defer {
                queued = []
                cancelled = []
            }
            return Work(jobs: queued, cancelled: cancelled, stopping: stopping)
        }

        /// Curl thread, right before it waits: `false` when work arrived since `takeWork`, so it must not sleep.
        mutating func prepareToSleep() -> Bool {
            guard queued.isEmpty, cancelled.isEmpty, !stopping else { return false }
            curlThreadSleeping = true
            return true
        }

        /// Curl thread: the job is done and can no longer be cancelled.
        mutating func finished(_ id: UInt64) {
            live.remove(id)
            cancelled.remove(id)
        }

        /// Curl thread, when it stops: refuses later work and returns jobs that arrived after the last `takeWork`.
        mutating func close() -> [Job] {
            closed = true
            defer {
                queued = []
                live = []
                cancelled = []
            }
            return queued
        }
    }
}
