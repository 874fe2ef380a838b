import BridgeSupport
import Metrics

/// `kakao_bridge_security_events_total{event,outcome}` (docs/operations.md#scraping): `event` the type's last path segment
/// (`other` for types Kakao has not documented; `unverified` for a refused SET, whose claims are not trusted), `outcome`
/// what the first run did (`done`, `no_user`, `pending`, `failed`), `acknowledged`, `replayed`, or the `err` of a refused
/// SET. One per process: reloads keep counting.
public final class SecurityEventMeters: Sendable {
    private let counters = FirstUseTable<String, Counter>()

    public init() {}

    package func count(event: String, outcome: String) {
        counters.value(for: event + " " + outcome) {
            Counter(label: MetricName.securityEvents.rawValue, dimensions: [("event", event), ("outcome", outcome)])
        }.increment()
    }
}
