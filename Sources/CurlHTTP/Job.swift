/// A request waiting for, or riding on, the multi thread, with the continuation its caller is suspended on.
struct Job: Sendable {
    typealias Outcome = Result<HTTPResponse, HTTPClientError>

    let id: UInt64
    let request: HTTPRequest
    let continuation: CheckedContinuation<Outcome, Never>

    func complete(_ outcome: Outcome) {
        continuation.resume(returning: outcome)
    }
}
