import BridgeFeatures
import Synchronization
import Upstreams

/// Holds the current `Features`; `nil` until configuration and key are loaded, or with `firebase.signer: iam` until the
/// metadata server has answered (then `/readyz` and every route say `not_ready`, with `notLoadedReason`). A reload swaps
/// them in one step.
public final class FeatureHolder: Sendable {
    private let features: Mutex<Features?>
    private let draining = Atomic<Bool>(false)
    private let waitingReason = Mutex<String?>(nil)

    public init(_ features: Features?) { self.features = Mutex(features) }

    public var current: Features? { features.withLock { $0 } }

    public func replace(_ newFeatures: Features) { features.withLock { $0 = newFeatures } }

    /// The first features of a service that started without them (keyless, once the metadata server answered); `false`
    /// when a reload installed newer ones meanwhile, which are kept.
    public func installFirst(_ newFeatures: Features) -> Bool {
        features.withLock { held in
            guard held == nil else { return false }
            held = newFeatures
            return true
        }
    }

    /// The detail of `not_ready` while there are no features: what is being waited for.
    public var notLoadedReason: String { waitingReason.withLock { $0 } ?? "Configuration or key not loaded." }

    public func waiting(for reason: String) { waitingReason.withLock { $0 = reason } }

    /// Set on SIGTERM so that `/readyz` turns 503 at once while in-flight requests finish.
    public var isDraining: Bool {
        get { draining.load(ordering: .relaxed) }
        set { draining.store(newValue, ordering: .relaxed) }
    }

    /// What a controller holds: one feature, read from the current set on each request. `nil` from `pick` is a feature
    /// switched off: 404 `not_found`, as if the route did not exist.
    func live<Feature: Sendable>(_ pick: @escaping @Sendable (Features) -> Feature?) -> Live<Feature> {
        Live(holder: self, pick: pick)
    }
}

/// One feature of the current set (`FeatureHolder.live`): controllers get what they use and nothing else.
struct Live<Feature: Sendable>: Sendable {
    let holder: FeatureHolder
    let pick: @Sendable (Features) -> Feature?

    func get() throws(Problem) -> Feature {
        guard let features = holder.current else { throw Problem.notReady(holder.notLoadedReason) }
        guard let feature = pick(features) else { throw Problem.notFound() }
        return feature
    }
}
