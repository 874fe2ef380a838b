import BridgeSupport
import Metrics

/// `kakao_bridge_reloads_total{outcome}` (docs/operations.md#scraping): each SIGHUP, applied or refused. A refused reload
/// keeps the running configuration and logs why at error; the counter lets an alert see it without reading logs.
final class ReloadMeters: Sendable {
    enum ReloadOutcome: String, CaseIterable, Sendable {
        case applied
        case refused
    }

    private let counters: [ReloadOutcome: Counter]

    /// Made with the application, after `BridgeMetrics.bootstrap()`: both series exist, at 0, before the first reload.
    init() {
        counters = Dictionary(uniqueKeysWithValues: ReloadOutcome.allCases.map {
            ($0, Counter(label: MetricName.reloads.rawValue, dimensions: [("outcome", $0.rawValue)]))
        })
    }

    func count(_ outcome: ReloadOutcome) { counters[outcome]?.increment() }
}
