/// A request waiting for, or riding on, the curl thread, with what to do once it is done. Made on any thread;
/// completed exactly once, on whichever thread finishes it.
struct Job: Sendable, Identifiable {
    typealias Outcome = Result<HTTPResponse, HTTPClientError>

    let id: UInt64
    let request: HTTPRequest
    /// The request's timeout counts from here, time spent queued for a connection included.
    let submitted: ContinuousClock.Instant = .now
    private let completion: @Sendable (Outcome) -> Void

    init(id: UInt64, request: HTTPRequest, continuation: CheckedContinuation<Outcome, Never>) {
        self.id = id
        self.request = request
        self.completion = { continuation.resume(returning: $0) }
    }

    init(id: UInt64, request: HTTPRequest, completion: @escaping @Sendable (Outcome) -> Void) {
        self.id = id
        self.request = request
        self.completion = completion
    }

    func complete(_ outcome: Outcome) {
        completion(outcome)
    }
}
