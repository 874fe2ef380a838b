import CCurl
import Foundation
import Synchronization

/// The cross-thread half of the client: an inbox of jobs and cancellations guarded by a mutex, and the
/// multi handle that the dedicated thread (`MultiDriver`) drives.
final class MultiLoop: Sendable {
    /// Used on the loop thread only; it is freed in `deinit`, when the thread has ended (it holds the loop).
    struct MultiPointer: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer
    }

    private struct Inbox {
        var queued: [Job] = []
        /// Ids handed to the loop and not yet completed; only these can be cancelled on the thread.
        var live: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
        var stopping = false
        /// Set by the loop thread when it stops; later submissions are refused.
        var closed = false
        /// The loop thread is about to wait in epoll_wait with nothing queued: only then does a new job need a
        /// wakeup. While the loop is busy it takes new work on its next turn anyway, so most submissions cost no syscall.
        var waiting = false
    }

    private let inbox = Mutex(Inbox())
    private let ids = Atomic<UInt64>(0)
    private let multi: MultiPointer?
    private let wakeSignal: WakeSignal?
    private let startupError: HTTPClientError?

    init(maxResponseBytes: Int, maxConnectionsPerHost: Int) {
        var failure = CurlGlobal.initialization
        var multi: MultiPointer?
        var signal: WakeSignal?
        var poller: SocketPoller?
        if failure == nil {
            do throws(HTTPClientError) {
                guard let raw = curl_multi_init() else {
                    throw HTTPClientError(kind: .transfer, call: "curl_multi_init", message: "could not allocate a multi handle")
                }
                multi = MultiPointer(raw: raw)
                try CurlCall.check(
                    kb_curl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnectionsPerHost)),
                    "curl_multi_setopt(CURLMOPT_MAX_HOST_CONNECTIONS)"
                )
                // curl's default keeps 4 idle connections per attached handle; handles are attached per transfer, so
                // between bursts the cache shrinks and closes connections that the next burst opens again. Room for
                // every host's full set keeps them alive.
                try CurlCall.check(
                    kb_curl_multi_setopt_long(raw, CURLMOPT_MAXCONNECTS, Self.idleConnections(perHost: maxConnectionsPerHost)),
                    "curl_multi_setopt(CURLMOPT_MAXCONNECTS)"
                )
                let wake = try WakeSignal()
                signal = wake
                poller = try SocketPoller(wake: wake)
            } catch {
                failure = error
            }
        }
        if failure != nil, let unusable = multi {
            curl_multi_cleanup(unusable.raw)
            multi = nil
        }
        self.multi = multi
        self.wakeSignal = signal
        self.startupError = failure

        guard let multi, let poller else {
            inbox.withLock { $0.closed = true }
            return
        }
        // The poller is created here so that a failure shows up as `startupError`; from now on only the thread uses it.
        let handoff = Handoff(poller: poller)
        let thread = Thread { [self] in
            MultiDriver(
                loop: self, multi: multi.raw, poller: handoff.poller,
                maxResponseBytes: maxResponseBytes, maxPerOrigin: maxConnectionsPerHost
            ).run()
        }
        thread.name = "curl-multi"
        thread.start()
    }

    /// Moves the loop-thread-only poller into the thread that will own it.
    private struct Handoff: @unchecked Sendable {
        let poller: SocketPoller
    }

    deinit {
        if let multi { curl_multi_cleanup(multi.raw) }
    }

    /// The service talks to four upstreams (Kakao, Identity Toolkit, the certificates, a backend).
    static func idleConnections(perHost: Int) -> Int { max(1, perHost) * 4 }

    // MARK: caller side

    func makeID() -> UInt64 {
        ids.wrappingAdd(1, ordering: .relaxed).newValue
    }

    func submit(_ job: Job) {
        submit([job])
    }

    /// One lock and at most one wakeup for all of `jobs`.
    func submit(_ jobs: [Job]) {
        guard !jobs.isEmpty else { return }
        let (refusal, wakeUp): (HTTPClientError?, Bool) = inbox.withLock { state in
            if let startupError { return (startupError, false) }
            if state.stopping || state.closed { return (Self.shutdownError, false) }
            // Checked under the lock so a cancellation racing with submission is seen either here or by cancel(_:).
            if Task.isCancelled { return (Self.cancelledError, false) }
            state.queued.append(contentsOf: jobs)
            for job in jobs { state.live.insert(job.id) }
            defer { state.waiting = false }
            return (nil, state.waiting)
        }
        if let refusal {
            for job in jobs { job.complete(.failure(refusal)) }
        }
        // Outside the lock: the wakeup is a syscall, and callers on other threads would spin on the lock meanwhile.
        if wakeUp { wake() }
    }

    func cancel(_ id: UInt64) {
        let dropped: Job? = inbox.withLock { state in
            if let index = state.queued.firstIndex(where: { $0.id == id }) {
                state.live.remove(id)
                return state.queued.remove(at: index)
            }
            if state.live.contains(id), !state.closed {
                state.cancelled.insert(id)
                state.waiting = false
                wake()
            }
            return nil
        }
        dropped?.complete(.failure(Self.cancelledError))
    }

    func shutdown() {
        inbox.withLock { state in
            guard !state.stopping, !state.closed else { return }
            state.stopping = true
            wake()
        }
    }

    private func wake() {
        wakeSignal?.signal()
    }

    // MARK: loop-thread side

    struct Work {
        var jobs: [Job]
        var cancelled: Set<UInt64>
        var stopping: Bool
    }

    func takeWork() -> Work {
        inbox.withLock { state in
            state.waiting = false
            defer {
                state.queued = []
                state.cancelled = []
            }
            return Work(jobs: state.queued, cancelled: state.cancelled, stopping: state.stopping)
        }
    }

    /// The loop saw the wake signal: reset it so the next wait blocks again.
    func drainWakeups() {
        wakeSignal?.drain()
    }

    /// Called by the loop right before it waits: `false` when work arrived since `takeWork`, so it must not wait.
    func prepareToWait() -> Bool {
        inbox.withLock { state in
            guard state.queued.isEmpty, state.cancelled.isEmpty, !state.stopping else { return false }
            state.waiting = true
            return true
        }
    }

    func finished(_ job: Job, _ outcome: Job.Outcome) {
        finished([(job, outcome)])
    }

    /// One lock for every transfer that completed in a turn of the loop.
    func finished(_ completions: [(Job, Job.Outcome)]) {
        guard !completions.isEmpty else { return }
        inbox.withLock { state in
            for (job, _) in completions {
                state.live.remove(job.id)
                state.cancelled.remove(job.id)
            }
        }
        for (job, outcome) in completions { job.complete(outcome) }
    }

    /// Marks the inbox closed and returns jobs that arrived after the last `takeWork`.
    func close() -> [Job] {
        inbox.withLock { state in
            state.closed = true
            defer {
                state.queued = []
                state.live = []
                state.cancelled = []
            }
            return state.queued
        }
    }

    static let shutdownError = HTTPClientError(kind: .shutdown, call: "CurlHTTPClient.shutdown", message: "the HTTP client was shut down")
    static let cancelledError = HTTPClientError(kind: .cancelled, call: "curl_multi_remove_handle", message: "the awaiting task was cancelled")
}
