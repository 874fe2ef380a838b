import BridgeSupport
import Metrics
import StateStore

/// `kakao_bridge_unlink_total{outcome}` (webhook calls), `kakao_bridge_unlink_steps_total{step,outcome}` and the queue's
/// gauges `kakao_bridge_unlink_events{state}` (docs/operations.md#metrics). One per process: reloads keep counting.
public final class UnlinkMeters: Sendable {
    package enum StepOutcome: String, CaseIterable, Sendable {
        case done
        case retry
        case failed
    }

    private let calls: [String: Counter]
    private let steps: [String: Counter]
    private let pending = Gauge(label: MetricName.unlinkEvents.rawValue, dimensions: [("state", "pending")])
    private let failed = Gauge(label: MetricName.unlinkEvents.rawValue, dimensions: [("state", "failed")])

    public init() {
        var calls: [String: Counter] = [:]
        for outcome in AccountActions.Outcome.allCases {
            calls[outcome.rawValue] = Counter(label: MetricName.unlinkCalls.rawValue, dimensions: [("outcome", outcome.rawValue)])
        }
        var steps: [String: Counter] = [:]
        for step in UnlinkStep.allCases {
            for outcome in StepOutcome.allCases {
                steps[step.rawValue + outcome.rawValue] = Counter(
                    label: MetricName.unlinkSteps.rawValue, dimensions: [("step", step.rawValue), ("outcome", outcome.rawValue)]
                )
            }
        }
        self.calls = calls
        self.steps = steps
    }

    package func count(_ outcome: AccountActions.Outcome) { calls[outcome.rawValue]?.increment() }

    package func count(_ step: UnlinkStep, _ outcome: StepOutcome) { steps[step.rawValue + outcome.rawValue]?.increment() }

    package func queue(_ counts: UnlinkQueueCounts) {
        pending.record(counts.pending)
        failed.record(counts.failed)
    }
}
