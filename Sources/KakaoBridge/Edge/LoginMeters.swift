import BridgeSupport
import HTTPTypes
import Upstreams

/// `kakao_bridge_logins_total{provider,outcome}`: every login (the token exchange, the legacy route) by provider and how
/// it ended, so that a dashboard sees Naver and LINE beside Kakao (docs/api.md#get-metrics). Resolved once: looking a
/// metric up per request costs a lock and a hash of its labels.
enum LoginMeters {
    enum LoginOutcome: String, CaseIterable, Sendable {
        case ok
        /// A 4xx: the caller's token or request.
        case refused
        /// A 5xx: an upstream, the store, the service.
        case failed
    }

    private static let counters = CounterGrid<Provider, LoginOutcome>(.logins, labels: ("provider", "outcome"))

    static func count(_ provider: Provider, _ outcome: LoginOutcome) {
        counters.increment(provider, outcome)
    }

    static func count(_ provider: Provider, _ problem: Problem) {
        count(provider, problem.status.code < 500 ? .refused : .failed)
    }
}
