import BridgeFeatures
import BridgeSupport
import Hummingbird
import Metrics
import Upstreams

/// `rate_limit.hook_per_minute`: one budget for every call of the hook-secret routes of this instance, taken after the
/// secret was checked (a stranger cannot spend it).
struct HookRateLimit: Sendable {
    let limiter = RateLimiter(maxClients: 4)
    private let limited = Counter(label: MetricName.rateLimited.rawValue, dimensions: [("limit", "hook")])

    /// The preamble of every hook-secret route, before its body is read: `Authorization: Bearer <hook secret>` (any
    /// secret of `hook.secret` during a rotation), then this budget. Anything else, including no header, is
    /// `unauthorized`, never `missing_token`: the caller is the backend, and the secret is not a user's token.
    func admit(_ request: Request, to feature: some HookSecured) throws(Problem) {
        guard AuthorizationHeader.carries(request, scheme: .bearer, anyOf: feature.secrets) else { throw Problem.unauthorized() }
        try take(perMinute: feature.perMinute)
    }

    private func take(perMinute: Int) throws(Problem) {
        guard perMinute > 0 else { return }
        if case .limited(let seconds) = limiter.take(client: "hook", perMinute: perMinute) {
            limited.increment()
            throw Problem.rateLimited(retryAfterSeconds: seconds)
        }
    }
}
