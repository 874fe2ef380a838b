import CCurl
import Foundation
import Synchronization

/// The cross-thread half of the client: an inbox of jobs and cancellations guarded by a mutex, and the
/// multi handle that the dedicated thread (`MultiDriver`) drives.
final class MultiLoop: Sendable {
    /// libcurl documents curl_multi_wakeup as callable from any thread; every other use stays on the loop thread.
    struct MultiPointer: @unchecked Sendable {
        let raw: UnsafeMutableRawPointer
    }

    private struct Inbox {
        var nextID: UInt64 = 0
        var queued: [Job] = []
        /// Ids handed to the loop and not yet completed; only these can be cancelled on the thread.
        var live: Set<UInt64> = []
        var cancelled: Set<UInt64> = []
        var stopping = false
        /// Set by the loop thread right before it frees the multi handle; no wakeup may follow.
        var closed = false
    }

    private let inbox = Mutex(Inbox())
    private let multi: MultiPointer?
    private let startupError: HTTPClientError?

    init(maxResponseBytes: Int, maxConnectionsPerHost: Int) {
        var failure = CurlGlobal.initialization
        var multi: MultiPointer?
        if failure == nil {
            if let raw = curl_multi_init() {
                multi = MultiPointer(raw: raw)
                do {
                    try CurlCall.check(
                        kb_curl_multi_setopt_long(raw, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maxConnectionsPerHost)),
                        "curl_multi_setopt(CURLMOPT_MAX_HOST_CONNECTIONS)"
                    )
                } catch {
                    failure = error
                }
            } else {
                failure = HTTPClientError(kind: .transfer, call: "curl_multi_init", message: "could not allocate a multi handle")
            }
        }
        self.multi = multi
        self.startupError = failure

        guard let multi else { return }
        if failure != nil {
            curl_multi_cleanup(multi.raw)
            inbox.withLock { $0.closed = true }
            return
        }
        let thread = Thread { [self] in
            MultiDriver(loop: self, multi: multi.raw, maxResponseBytes: maxResponseBytes).run()
        }
        thread.name = "curl-multi"
        thread.start()
    }

    // MARK: caller side

    func makeID() -> UInt64 {
        inbox.withLock { state in
            state.nextID &+= 1
            return state.nextID
        }
    }

    func submit(_ job: Job) {
        let refusal: HTTPClientError? = inbox.withLock { state in
            if let startupError { return startupError }
            if state.stopping || state.closed { return Self.shutdownError }
            // Checked under the lock so a cancellation racing with submission is seen either here or by cancel(_:).
            if Task.isCancelled { return Self.cancelledError }
            state.queued.append(job)
            state.live.insert(job.id)
            wake()
            return nil
        }
        if let refusal { job.complete(.failure(refusal)) }
    }

    func cancel(_ id: UInt64) {
        let dropped: Job? = inbox.withLock { state in
            if let index = state.queued.firstIndex(where: { $0.id == id }) {
                state.live.remove(id)
                return state.queued.remove(at: index)
            }
            if state.live.contains(id), !state.closed {
                state.cancelled.insert(id)
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

    /// Only called with the inbox lock held, so it cannot race the loop thread freeing the handle.
    private func wake() {
        guard let multi else { return }
        // If this fails the job is still queued; the loop polls with a short bound and will pick it up.
        try? CurlCall.check(curl_multi_wakeup(multi.raw), "curl_multi_wakeup")
    }

    // MARK: loop-thread side

    struct Work {
        var jobs: [Job]
        var cancelled: Set<UInt64>
        var stopping: Bool
    }

    func takeWork() -> Work {
        inbox.withLock { state in
            defer {
                state.queued = []
                state.cancelled = []
            }
            return Work(jobs: state.queued, cancelled: state.cancelled, stopping: state.stopping)
        }
    }

    func finished(_ job: Job, _ outcome: Job.Outcome) {
        inbox.withLock { state in
            state.live.remove(job.id)
            state.cancelled.remove(job.id)
        }
        job.complete(outcome)
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
