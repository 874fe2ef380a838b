import BridgeSupport
import Metrics

/// `kakao_bridge_account_deletions_total{provider,outcome}` (docs/operations.md#metrics): each deletion once when first
/// answered (`done`: 200, `pending`: 202), and once more as `failed` if the queue gives up on it. One per process.
public final class DeletionMeters: Sendable {
    package enum Outcome: String, CaseIterable, Sendable {
        case done
        case pending
        case failed
    }

    private let counters: [String: Counter]

    public init() {
        var counters: [String: Counter] = [:]
        for provider in Provider.allCases {
            for outcome in Outcome.allCases {
                counters[provider.rawValue + outcome.rawValue] = Counter(
                    label: MetricName.accountDeletions.rawValue,
                    dimensions: [("provider", provider.rawValue), ("outcome", outcome.rawValue)]
                )
            }
        }
        self.counters = counters
    }

    package func count(_ provider: Provider, _ outcome: Outcome) { counters[provider.rawValue + outcome.rawValue]?.increment() }
}
