import BridgeSupport
import Metrics
import StateStore

/// `kakao_bridge_unlink_total{outcome}` (webhook calls), `kakao_bridge_unlink_steps_total{step,outcome}` and the queue's
/// gauges `kakao_bridge_unlink_events{state}` (docs/operations.md#scraping). One per process: reloads keep counting.
public final class UnlinkMeters: Sendable {
    package enum StepOutcome: String, CaseIterable, Sendable {
        case done
        case retry
        case failed
    }

    private let calls: [String: Counter]
    private let steps = CounterGrid<AccountStep, StepOutcome>(.unlinkSteps, labels: ("step", "outcome"))
    private let pending = Gauge(label: MetricName.unlinkEvents.rawValue, dimensions: [("state", "pending")])
    private let failed = Gauge(label: MetricName.unlinkEvents.rawValue, dimensions: [("state", "failed")])

    public init() {
        var calls: [String: Counter] = [:]
        for outcome in AccountActions.EventOutcome.allCases {
            calls[outcome.rawValue] = Counter(label: MetricName.unlinkCalls.rawValue, dimensions: [("outcome", outcome.rawValue)])
        }
        self.calls = calls
    }

    package func count(_ outcome: AccountActions.EventOutcome) { calls[outcome.rawValue]?.increment() }

    package func count(_ step: AccountStep, _ outcome: StepOutcome) { steps.increment(step, outcome) }

    package func queue(_ counts: AccountEventCounts) {
        pending.record(counts.pending)
        failed.record(counts.failed)
    }
}
