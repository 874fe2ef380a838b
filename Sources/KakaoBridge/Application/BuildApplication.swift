import BridgeFeatures
import BridgeSupport
import BuildVersion
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import Upstreams

/// The composition root: `serve`, the sandbox and the tests all run the application built here, from a configuration and
/// the upstreams to call (the real ones from `BridgeUpstreams.live`, or fakes). Metrics are bootstrapped by the caller,
/// once per process (`BridgeMetrics.bootstrap()`).
public func buildApplication(
    config: BridgeConfig, upstreams: BridgeUpstreams, environment: BridgeEnvironment
) throws(StartupFailure) -> BridgeApplication {
    let shared = environment.shared
    let assembly = FeatureAssembly(environment: environment)
    // Keyless, the features wait for the metadata server (`KeylessStartService`); a key file is read here, and a
    // problem with it stops the start.
    let features = config.firebase.signer == .iam ? nil : try assembly.assemble(
        config, upstreams: upstreams, logger: environment.logger
    )
    logStart(features?.config ?? config, shared: shared, logger: environment.logger)
    let holder = FeatureHolder(features)
    var keylessStart: [any Service] = []
    if features == nil {
        holder.waiting(for: KeylessAccount.waiting(for: nil))
        keylessStart.append(KeylessStartService(
            holder: holder, config: config, upstreams: upstreams, environment: environment, assembly: assembly
        ))
    }
    let onServerRunning = environment.onServerRunning
    let reload = ReloadService(
        holder: holder, environment: environment, startup: config, assembly: assembly
    )
    let logger = environment.logger
    let sharedStateServices: [any Service] = [
        shared.store,
        BackgroundService("UnlinkMarkFollower") {
            await UnlinkMarkFollower(shared: shared, logger: logger) { holder.current?.forgetKakaoUser($0) }.run()
        },
        BackgroundService("AccountEventWorker") {
            await AccountEventWorker(shared: shared, logger: logger) { holder.current?.accountActions }.run()
        },
    ]
    // docs/operations.md#the-admin-port: with an admin port the probes and the scrape move there, and the public port
    // answers them 404.
    let admin = config.server.adminPort.map { port in
        AdminListener(
            responder: buildRouter(holder: holder, storeHealth: shared.health, listeners: [.admin]).buildResponder(),
            server: guardedHTTP1(config.server, holder: holder),
            configuration: ServerConfiguration(address: .hostname(config.server.adminHost, port: port), serverName: nil),
            onRunning: environment.onAdminRunning
        )
    }
    let publicListeners: Set<Route.Listener> = admin == nil ? [.public, .admin] : [.public]
    let application = Application(
        responder: RequestAdmission(
            inner: buildRouter(holder: holder, storeHealth: shared.health, listeners: publicListeners).buildResponder(),
            queue: AdmissionQueue(
                limit: environment.loginAdmissionLimit, waitingMeter: Meter(label: MetricName.loginsWaiting.rawValue)
            )
        ),
        server: guardedHTTP1(config.server, holder: holder),
        // A listen queue as long as the connections we accept (the kernel caps it at net.core.somaxconn): with
        // Hummingbird's 256, a crowd connecting at once overflows it, and each dropped handshake waits a second or
        // more for the client's retransmission (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
        configuration: .init(
            address: .hostname(config.server.host, port: config.server.port), serverName: nil,
            backlog: config.server.maxConnections
        ),
        services: sharedStateServices + keylessStart + [KeyPrefetchService(holder: holder, logger: environment.logger), reload],
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
        logger: environment.logger
    )
    return BridgeApplication(inner: application, holder: holder, admin: admin)
}

/// The service's first log line: what it talks to. With the Auth Emulator this line says so before anything else, as the
/// Admin SDKs warn; a production instance must never run like that unnoticed.
func logStart(_ config: BridgeConfig, shared: SharedState, logger: Logger) {
    var metadata: Logger.Metadata = [
        // Which build is running, first thing: the release and the commit (docs/operations.md#versions).
        "version": "\(BuildVersion.version)",
        "commit": "\(BuildVersion.commit)",
        "project_id": "\(config.firebase.projectID.isEmpty ? "(from the metadata server)" : config.firebase.projectID)",
        "signer": "\(config.firebase.signer.rawValue)",
        "user_sync": "\(config.firebase.userSync.rawValue)",
        "check_revoked": LogValue.bool(config.hook.checkRevoked),
        "security_events": LogValue.bool(config.kakao.events.enabled),
    ]
    if config.firebase.usesEmulator {
        metadata["firebase_auth_emulator"] = "\(config.firebase.emulatorHost)"
        logger.warning(
            "starting against the Firebase Auth Emulator at \(config.firebase.emulatorHost), not Google: unsigned ID tokens are accepted",
            metadata: metadata
        )
    } else {
        logger.info("starting", metadata: metadata)
    }
    if let warning = ConfigValidation.metadataWarning(config.firebase) { logger.warning("\(warning)") }
    // docs/operations.md#shared-state: a restart loses what the webhook has not finished, and other instances see nothing.
    if !shared.isDurable, !config.kakao.adminKey.isEmpty {
        logger.warning("the unlink webhook is on with state.url empty: pending unlink steps live in this process's memory and are lost when it stops; set state.url for a durable store")
    }
    if !shared.isDurable, config.kakao.events.enabled {
        logger.warning("Kakao's security events are on with state.url empty: their pending steps and the jti of each SET live in this process's memory and are lost when it stops; set state.url for a durable store")
    }
}
