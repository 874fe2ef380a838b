import BridgeSupport

/// `kakao_bridge_account_deletions_total{provider,outcome}` (docs/operations.md#scraping): each deletion once when first
/// answered (`done`: 200, `pending`: 202), and a `pending` one once more when the queue ends it (`done` when it finishes
/// the steps, `failed` when it gives up). One per process.
public final class DeletionMeters: Sendable {
    package enum DeletionOutcome: String, CaseIterable, Sendable {
        case done
        case pending
        case failed
    }

    private let counters = CounterGrid<Provider, DeletionOutcome>(.accountDeletions, labels: ("provider", "outcome"))

    public init() {}

    package func count(_ provider: Provider, _ outcome: DeletionOutcome) { counters.increment(provider, outcome) }
}
