import BridgeSupport
import HTTPTypes
import Metrics
import Upstreams

/// `kakao_bridge_logins_total{provider,outcome}`: every login (the token exchange, the legacy route) by provider and how
/// it ended, so that a dashboard sees Naver and LINE beside Kakao (docs/api.md#get-metrics). Resolved once: looking a
/// metric up per request costs a lock and a hash of its labels.
enum LoginMeters {
    enum Outcome: String, CaseIterable {
        case ok
        /// A 4xx: the caller's token or request.
        case refused
        /// A 5xx: an upstream, the store, the service.
        case failed
    }

    private static let counters: [Provider: [Outcome: Counter]] = Dictionary(uniqueKeysWithValues: Provider.allCases.map { provider in
        (provider, Dictionary(uniqueKeysWithValues: Outcome.allCases.map { outcome in
            (outcome, Counter(label: MetricName.logins.rawValue, dimensions: [("provider", provider.rawValue), ("outcome", outcome.rawValue)]))
        }))
    })

    static func count(_ provider: Provider, _ outcome: Outcome) {
        counters[provider]?[outcome]?.increment()
    }

    static func count(_ provider: Provider, _ problem: Problem) {
        count(provider, problem.status.code < 500 ? .refused : .failed)
    }
}
