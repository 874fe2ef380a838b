import BridgeSupport
import Metrics
import Upstreams

/// `rate_limit.hook_per_minute`: one budget for every call of the hook-secret routes of this instance, taken after the
/// secret was checked (a stranger cannot spend it).
struct HookRateLimit: Sendable {
    let limiter = RateLimiter(maxClients: 4)
    private let limited = Counter(label: MetricName.rateLimited.rawValue, dimensions: [("limit", "hook")])

    func take(perMinute: Int) throws(Problem) {
        guard perMinute > 0 else { return }
        if case .limited(let seconds) = limiter.take(client: "hook", perMinute: perMinute) {
            limited.increment()
            throw Problem.rateLimited(retryAfterSeconds: seconds)
        }
    }
}
