import BridgeSupport
import Hummingbird
import Metrics
import Upstreams

/// Applies `rate_limit.per_client_per_minute` per client (after `ClientAddress`): an IPv4 address, or an
/// IPv6 /64 (one host usually holds a whole /64, so per-address buckets would be free for it to multiply). Probes and the
/// metrics scrape are exempt: a busy load balancer or Prometheus must never be told to back off. Routes authenticated by
/// the hook secret are exempt too: the backend calls them from a few addresses for all users; they authenticate first
/// and then take from their own budget (`rate_limit.hook_per_minute`, `HookRateLimit`). The unlink webhook's refusals are
/// not exempt (`charge`).
struct ClientRateLimit: Sendable {
    let limiter = RateLimiter()
    private let limited = Counter(label: MetricName.rateLimited.rawValue, dimensions: [("limit", "client")])

    /// Takes from the client's bucket, or refuses the request.
    func check(_ context: BridgeRequestContext, perMinute: Int) throws(Problem) {
        if perMinute > 0, Self.clientLimit(context) == .applies,
            case .limited(let seconds) = limiter.take(client: Self.clientKey(context.clientAddress), perMinute: perMinute)
        {
            limited.increment()
            throw Problem.rateLimited(retryAfterSeconds: seconds)
        }
    }

    /// What the route table says of the request's route; a request that matched no route is limited like any other.
    static func clientLimit(_ context: BridgeRequestContext) -> Route.ClientLimit {
        context.route?.clientLimit ?? .applies
    }

    /// The failure the client gets: `error` itself, or `rate_limited` once its refusals on `chargedRefusalRoutes` are past
    /// `perMinute`.
    @inline(never)
    func charge(_ error: any Error, _ context: BridgeRequestContext, perMinute: Int) -> any Error {
        guard perMinute > 0, let problem = error as? Problem, problem.status == .unauthorized,
              Self.clientLimit(context) == .refusalsCharged,
              case .limited(let seconds) = limiter.take(client: Self.clientKey(context.clientAddress), perMinute: perMinute)
        else { return error }
        limited.increment()
        return Problem.rateLimited(retryAfterSeconds: seconds)
    }
}

extension ClientRateLimit {
    /// The bucket of an address: itself for IPv4 (and anything unparsable), its /64 for IPv6. An IPv4-mapped IPv6 address
    /// (`::ffff:10.1.2.3`, what a socket listening on `::` reports for an IPv4 client) is that IPv4 address: as a /64,
    /// every IPv4 client would share one bucket.
    static func clientKey(_ address: String) -> String {
        guard address.contains(":"), let bytes = IPAddressParser.parse(address), bytes.count == 16 else { return address }
        if bytes.prefix(12).elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) {
            return bytes.suffix(4).map { String($0) }.joined(separator: ".")
        }
        var key = ""
        for index in stride(from: 0, to: 8, by: 2) {
            key += String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16) + ":"
        }
        return key + ":/64"
    }
}

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
