/// The service's one HTTP client: libcurl's multi interface driven by a single background thread.
///
/// `execute` only enqueues work and suspends, so callers on NIO event loops are never blocked. Easy handles are
/// pooled and connections are cached by the multi handle, so keep-alive connections and TLS sessions are reused.
/// Redirects are not followed, only http and https are allowed, and replies above `maxResponseBytes` are cut off.
public final class CurlHTTPClient: Sendable {
    private let loop: MultiLoop

    public init(maxResponseBytes: Int = 1 << 20, maxConnectionsPerHost: Int = 64) {
        loop = MultiLoop(maxResponseBytes: maxResponseBytes, maxConnectionsPerHost: maxConnectionsPerHost)
    }

    deinit {
        loop.shutdown()
    }

    /// Cancelling the awaiting task aborts the transfer and throws an error of kind `.cancelled`.
    public func execute(_ request: HTTPRequest) async throws(HTTPClientError) -> HTTPResponse {
        try request.validate()
        let loop = self.loop
        let id = loop.makeID()
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                loop.submit(Job(id: id, request: request, continuation: continuation))
            }
        } onCancel: {
            loop.cancel(id)
        }
        return try outcome.get()
    }

    /// Fails every pending call with `.shutdown` and stops the background thread; later calls fail the same way.
    public func shutdown() {
        loop.shutdown()
    }
}
