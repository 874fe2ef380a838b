// How CurlHTTP is put together. One dedicated thread (the curl thread) owns every curl handle; other threads only
// ever touch the inbox. Each type's doc comment says on which side it lives.
//
//   any thread     CurlHTTPClient, HTTPRequest/HTTPResponse/HTTPClientError, Job, Batch
//                  CurlThreadInbox (+State): callers put jobs and cancellations in, the curl thread takes them out
//                  CurlThread: makes the multi handle, wake signal and poller, then starts the curl thread
//   curl thread    CurlThreadDriver (+Transfers, +Sockets): the loop that drives curl_multi_socket_action
//                  CurlMultiHandle, EasyHandle, SocketPoller (epoll), WakeSignal.drain (eventfd)
//   pure values    OriginQueue (per-origin slots and waiting lines), HandlePool (idle easy handles), CurlTimer
//                  (curl's timer), CurlThreadInbox.State (hand-over rules); unit-tested without sockets
//   C calls        CurlCall: every libcurl return code becomes an HTTPClientError there; CurlGlobal: global init

/// The service's one HTTP client: libcurl's multi interface driven by a single background thread. **Any thread.**
///
/// `execute` only enqueues work and suspends, so callers on NIO event loops are never blocked. Easy handles are
/// pooled and connections are cached by the multi handle, so keep-alive connections and TLS sessions are reused.
/// Redirects are not followed, only http and https are allowed, and replies above `maxResponseBytes` are cut off.
public final class CurlHTTPClient: Sendable {
    private let inbox: CurlThreadInbox

    public init(maxResponseBytes: Int = 1 << 20, maxConnectionsPerHost: Int = 64) {
        inbox = CurlThread.start(maxResponseBytes: maxResponseBytes, maxConnectionsPerHost: maxConnectionsPerHost)
    }

    deinit {
        inbox.shutdown()
    }

    /// Cancelling the awaiting task aborts the transfer and throws an error of kind `.cancelled`.
    public func execute(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        try request.validate()
        let inbox = self.inbox
        let id = inbox.makeID()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                inbox.submit(Job(id: id, request: request, continuation: continuation))
            }
        } onCancel: {
            inbox.cancel(id)
        }
        return try outcome.get()
    }

    /// Sends every request at once and returns when all have finished, in the order given, each with the instant it
    /// finished. One suspension for the lot: cheaper than a child task per request when a caller needs all the answers.
    /// Cancelling the awaiting task aborts the transfers still running.
    public func execute(all requests: [HTTPRequest]) async -> [(outcome: Result<HTTPResponse, HTTPClientError>, finishedAt: ContinuousClock.Instant)] {
        guard !requests.isEmpty else { return [] }
        let inbox = self.inbox
        let batch = Batch(count: requests.count)
        var jobs: [Job] = []
        var refused: [(Int, HTTPClientError)] = []
        for (index, request) in requests.enumerated() {
            do throws(HTTPClientError) {
                try request.validate()
                jobs.append(Job(id: inbox.makeID(), request: request) { batch.deliver(index, $0) })
            } catch {
                refused.append((index, error))
            }
        }
        let ids = jobs.map(\.id)
        let completions = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                batch.wait(with: continuation)
                for (index, error) in refused { batch.deliver(index, .failure(error)) }
                inbox.submit(jobs)
            }
        } onCancel: {
            for id in ids { inbox.cancel(id) }
        }
        return completions.map { ($0.outcome, $0.finishedAt) }
    }

    /// Fails every pending call with `.shutdown` and stops the background thread; later calls fail the same way.
    public func shutdown() {
        inbox.shutdown()
    }
}
