/// Jittered exponential backoff for idempotent calls, always inside the caller's deadline.
package struct RetryPolicy: Sendable {
    package var maxRetries: Int
    package var baseDelay: Duration

    /// Kakao's GETs are idempotent: retried at most twice on outages and connection errors (issue "hard to break").
    package static let kakao = RetryPolicy(maxRetries: 2, baseDelay: .milliseconds(50))
    /// Google's token endpoint and the Admin API's reads: once more on a connection failure or a 5xx.
    package static let google = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(50))
    /// A notice that may be delivered twice (the backend's unlink URL): once more on a connection failure.
    package static let once = RetryPolicy(maxRetries: 1, baseDelay: .milliseconds(50))
    package static let none = RetryPolicy(maxRetries: 0, baseDelay: .zero)

    /// Sleeps before retry number `attempt` (1-based); `false` when the pause would not leave time for the retry.
    package func pause(before attempt: Int, deadline: ContinuousClock.Instant) async -> Bool {
        let ceiling = baseDelay * (1 << min(attempt - 1, 6))
        let delay = ceiling * Double.random(in: 0.5...1.0)
        guard ContinuousClock.now.advanced(by: delay + .milliseconds(5)) < deadline else { return false }
        do {
            try await Task.sleep(for: delay)
        } catch {
            return false
        }
        return true
    }
}
