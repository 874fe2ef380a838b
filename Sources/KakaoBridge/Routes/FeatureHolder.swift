import BridgeFeatures
import Synchronization
import Upstreams

/// Holds the current `Features`; `nil` until configuration and key are loaded (then `/readyz` and every route say
/// `not_ready`). A reload swaps them in one step.
public final class FeatureHolder: Sendable {
    private let features: Mutex<Features?>
    private let draining = Atomic<Bool>(false)

    public init(_ features: Features?) { self.features = Mutex(features) }

    public var current: Features? { features.withLock { $0 } }

    public func replace(_ newFeatures: Features) { features.withLock { $0 = newFeatures } }

    /// Set on SIGTERM so that `/readyz` turns 503 at once while in-flight requests finish.
    public var isDraining: Bool {
        get { draining.load(ordering: .relaxed) }
        set { draining.store(newValue, ordering: .relaxed) }
    }

    /// What a controller holds: one feature, read from the current set on each request. `nil` from `pick` is a feature
    /// switched off: 404 `not_found`, as if the route did not exist.
    func live<Service: Sendable>(_ pick: @escaping @Sendable (Features) -> Service?) -> Live<Service> {
        Live(holder: self, pick: pick)
    }
}

/// One feature of the current set (`FeatureHolder.live`): controllers get what they use and nothing else.
struct Live<Service: Sendable>: Sendable {
    let holder: FeatureHolder
    let pick: @Sendable (Features) -> Service?

    func get() throws(Problem) -> Service {
        guard let features = holder.current else { throw Problem.notReady("Configuration or key not loaded.") }
        guard let service = pick(features) else { throw Problem.notFound() }
        return service
    }
}
