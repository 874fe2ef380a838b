import BridgeSupport
import Metrics

/// One upstream's call counter and latency timer per outcome, each made on the first call with that outcome and then
/// reused: creating a metric per call looks it up in the registry (a lock and a hash of its labels), which on the hot
/// path costs more than the bookkeeping itself.
///
/// Made on first use rather than up front, so that `/metrics` shows only the upstreams the configuration uses (and the
/// outcomes they had): every upstream has a client whatever the configuration, and fourteen buckets per outcome of
/// fifteen upstreams were most of the page (docs/operations.md#scraping).
package final class UpstreamMeters: Sendable {
    package enum CallOutcome: String, CaseIterable, Sendable {
        case ok
        case clientError = "4xx"
        case serverError = "5xx"
        case timeout
        case error
        case overloaded
    }

    private struct Meters: Sendable {
        let calls: Counter
        let duration: Timer
    }

    private let upstream: String
    private let made = FirstUseTable<CallOutcome, Meters>()

    package init(upstream: String) { self.upstream = upstream }

    package func count(_ outcome: CallOutcome) {
        meters(outcome).calls.increment()
    }

    package func record(_ outcome: CallOutcome, nanoseconds: Int64) {
        let meters = meters(outcome)
        meters.calls.increment()
        meters.duration.recordNanoseconds(nanoseconds)
    }

    private func meters(_ outcome: CallOutcome) -> Meters {
        made.value(for: outcome) {
            let dimensions = [("upstream", upstream), ("outcome", outcome.rawValue)]
            return Meters(
                calls: Counter(label: MetricName.upstreamCalls.rawValue, dimensions: dimensions),
                duration: Timer(label: MetricName.upstreamDuration.rawValue, dimensions: dimensions)
            )
        }
    }
}
