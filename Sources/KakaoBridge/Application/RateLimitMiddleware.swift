import Hummingbird
import Metrics

/// Applies `rate_limit.per_client_per_minute` per client address (after `ClientAddressMiddleware`). Probes and the
/// metrics scrape are exempt: a busy load balancer or Prometheus must never be told to back off.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = BridgeRequestContext

    static let exemptRoutes: Set<String> = ["/healthz", "/readyz", "/metrics"]

    let holder: StateHolder
    let limiter: RateLimiter
    private let limited = Counter(label: "kakao_bridge_rate_limited_total")

    init(holder: StateHolder, limiter: RateLimiter = RateLimiter()) {
        self.holder = holder
        self.limiter = limiter
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let perMinute = holder.current?.config.rateLimit.perClientPerMinute ?? 0
        if perMinute > 0, !Self.exemptRoutes.contains(RouteLabel.route(context)),
            case .limited(let seconds) = limiter.take(client: context.clientAddress, perMinute: perMinute)
        {
            limited.increment()
            throw Problem.rateLimited(retryAfterSeconds: seconds)
        }
        return try await next(request, context)
    }
}
