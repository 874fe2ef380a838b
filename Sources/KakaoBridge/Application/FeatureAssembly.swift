import BridgeFeatures
import BridgeSupport
import Logging
import Upstreams

/// What every `Features.assemble` of the process shares: the state, the clock, the loop placement and one set of unlink,
/// security event and account deletion meters (a reload keeps counting). Made once by `buildApplication`; the start, the keyless start
/// (`KeylessStartService`) and each reload (`ReloadService`) assemble through it, so the three cannot drift apart.
struct FeatureAssembly: Sendable {
    let environment: BridgeEnvironment
    let unlinkMeters = UnlinkMeters()
    let securityEventMeters = SecurityEventMeters()
    let deletionMeters = DeletionMeters()

    func assemble(
        _ config: BridgeConfig, upstreams: BridgeUpstreams, keyless: KeylessAccount? = nil, logger: Logger
    ) throws(StartupFailure) -> Features {
        try Features.assemble(
            config, upstreams: upstreams, shared: environment.shared, unlinkMeters: unlinkMeters,
            securityEventMeters: securityEventMeters, deletionMeters: deletionMeters, keyless: keyless, clock: environment.clock,
            placement: LoopExecutor.placement, logger: logger
        )
    }
}
