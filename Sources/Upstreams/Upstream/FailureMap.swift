import BridgeSupport
import CurlHTTP

/// How one upstream's failures become problems (docs/errors.md#upstream-failures): every client declares one table of this shape, and
/// `Upstream` applies it, so no client has a failure switch or a retry loop of its own.
package struct FailureMap: Sendable {
    /// A non-2xx answer's meaning: the problem, and whether asking again may help.
    package struct Refusal: Sendable {
        package var problem: Problem
        package var retryable: Bool

        package init(_ problem: Problem, retryable: Bool = false) {
            self.problem = problem
            self.retryable = retryable
        }
    }

    /// Names the upstream in details: "Kakao", "Identity Toolkit", "the backend".
    package let displayName: String
    /// The problem for an upstream that cannot be reached, is overloaded here, or answers something unreadable.
    package let unavailable: @Sendable (String) -> Problem
    /// Non-2xx answers; `nil` hands the answer to the client as it came (the backend's refusal goes to the app).
    package let refusal: @Sendable (HTTPResponse) -> Refusal?
    /// Only idempotent calls retry, and only connection failures and refusals marked retryable.
    package let retry: RetryPolicy

    package init(
        _ displayName: String, unavailable: @escaping @Sendable (String) -> Problem, retry: RetryPolicy = .none,
        refusal: @escaping @Sendable (HTTPResponse) -> Refusal?
    ) {
        self.displayName = displayName
        self.unavailable = unavailable
        self.retry = retry
        self.refusal = refusal
    }

    /// What one attempt's outcome means to the caller.
    package enum Verdict: Sendable {
        case answer(HTTPResponse)
        case fail(Problem, retryable: Bool)
    }

    package func verdict(_ outcome: Result<HTTPResponse, Upstream.Failure>) -> Verdict {
        switch outcome {
        case .failure(.timeout):
            return .fail(.upstreamTimeout(sentenceName), retryable: false)
        case .failure(.overloaded):
            return .fail(unavailable("Too many calls to \(displayName) are in flight."), retryable: false)
        case .failure(.unreachable(let why)):
            return .fail(unavailable("\(sentenceName) is unreachable: \(why)."), retryable: true)
        case .success(let response):
            if (200..<300).contains(response.status) { return .answer(response) }
            guard let refused = refusal(response) else { return .answer(response) }
            return .fail(refused.problem, retryable: refused.retryable)
        }
    }

    /// The problem for an answer that arrived but cannot be read.
    package var unreadable: Problem { unavailable("\(sentenceName)'s answer could not be read.") }

    private var sentenceName: String { displayName.prefix(1).uppercased() + displayName.dropFirst() }
}
