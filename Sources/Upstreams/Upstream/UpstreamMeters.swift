import BridgeSupport
import Metrics

/// One upstream's call counters and latency timers, resolved once per outcome: creating a metric per call looks it up in
/// the registry (a lock and a hash of its labels), which on the hot path costs more than the bookkeeping itself.
package final class UpstreamMeters: Sendable {
    package enum Outcome: String, CaseIterable, Sendable {
        case ok
        case clientError = "4xx"
        case serverError = "5xx"
        case timeout
        case error
        case overloaded
    }

    private let counters: [Counter]
    private let timers: [Timer]

    package init(upstream: String) {
        counters = Outcome.allCases.map {
            Counter(label: MetricName.upstreamCalls.rawValue, dimensions: [("upstream", upstream), ("outcome", $0.rawValue)])
        }
        timers = Outcome.allCases.map {
            Timer(label: MetricName.upstreamDuration.rawValue, dimensions: [("upstream", upstream), ("outcome", $0.rawValue)])
        }
    }

    package func count(_ outcome: Outcome) {
        counters[Self.index(outcome)].increment()
    }

    package func record(_ outcome: Outcome, nanoseconds: Int64) {
        counters[Self.index(outcome)].increment()
        timers[Self.index(outcome)].recordNanoseconds(nanoseconds)
    }

    private static func index(_ outcome: Outcome) -> Int {
        switch outcome {
        case .ok: 0
        case .clientError: 1
        case .serverError: 2
        case .timeout: 3
        case .error: 4
        case .overloaded: 5
        }
    }
}
