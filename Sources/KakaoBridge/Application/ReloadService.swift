import BridgeFeatures
import BridgeSupport
import FoundationEssentials
import Logging
import ServiceLifecycle
import UnixSignals
import Upstreams

/// SIGHUP: reads the configuration file and the service-account file again and swaps the state in one step, so a request
/// sees either the old state or the new one, never a mix, and none is dropped. A reload that fails keeps the old state.
struct ReloadService: Service, CustomStringConvertible {
    let holder: FeatureHolder
    let environment: BridgeEnvironment
    /// Settings only read at start-up; a reload that changes them says a restart is needed.
    let startup: BridgeConfig
    /// What the start assembled its features with: the same meters, so a reload keeps counting.
    let assembly: FeatureAssembly
    /// `kakao_bridge_reloads_total{outcome}`: both outcomes from the start, so an alert on `refused` has a series at 0.
    let reloads = ReloadMeters()

    /// ServiceLifecycle logs every service's description; the synthesised one would print the whole configuration,
    /// secrets included.
    var description: String { "ReloadService" }

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangups.cancelOnGracefulShutdown() {
            await reload()
        }
    }

    private var logger: Logger { environment.logger }

    func reload() async {
        reloads.count(await attempt())
    }

    /// Every way out but the last keeps the running state: `refused`.
    private func attempt() async -> ReloadMeters.ReloadOutcome {
        guard let reload = environment.reload else {
            logger.warning("reload ignored: the configuration did not come from a file")
            return .refused
        }
        let config: BridgeConfig
        do {
            config = try ConfigLoader.load(path: reload.configPath, environment: ProcessInfo.processInfo.environment)
        } catch {
            // ConfigError lists key paths and reasons, never values.
            logger.error("reload failed, keeping the running configuration", metadata: ["reason": "\(error.description)"])
            return .refused
        }
        let upstreams = reload.upstreams(config)
        // Keyless (docs/api.md#keyless-signing-on-google-cloud): the new configuration's account and project, and a token,
        // before anything is swapped; a metadata server that does not answer keeps the running state.
        var keyless: KeylessAccount?
        if config.firebase.signer == .iam {
            do throws(Problem) {
                keyless = try await KeylessAccount.resolve(
                    config, upstreams: upstreams, clock: environment.clock, context: CallContext(requestID: "reload")
                )
            } catch {
                logger.error(
                    "reload failed, keeping the running configuration",
                    metadata: ["reason": "keyless signing: the metadata server did not answer (\(error.code.rawValue): \(error.detail))"]
                )
                return .refused
            }
        }
        let features: Features
        do {
            features = try assembly.assemble(config, upstreams: upstreams, keyless: keyless, logger: logger)
        } catch {
            logger.error("reload failed, keeping the running configuration", metadata: ["reason": "\(error.description)"])
            return .refused
        }
        await waitUntilReady(features)
        holder.replace(features)
        let restartOnly = Self.restartOnlyChanges(from: startup, to: config)
        if !restartOnly.isEmpty {
            logger.warning(
                "reloaded, but some changes take effect only after a restart",
                metadata: ["keys": .array(restartOnly.map { .string($0) })]
            )
        } else {
            logger.info("reloaded configuration and service account")
        }
        return .applied
    }

    /// A fresh hook verifier has no certificates yet; swapping it in at once would turn `/readyz` 503 for a moment and
    /// make a load balancer pull this replica. One fetch first (bounded by the upstream deadline); should it fail, the
    /// prefetch service keeps trying after the swap.
    private func waitUntilReady(_ features: Features) async {
        guard let idTokens = features.hook?.idTokens else { return }
        // A shutdown during the reload must not wait for the fetch.
        if await unlessCancelled({ await idTokens.prefetch() }) == false {
            logger.warning("reload: Google's certificates are not fetched yet; the hook is not ready until they are")
        }
    }

    static func restartOnlyChanges(from old: BridgeConfig, to new: BridgeConfig) -> [String] {
        var keys: [String] = []
        if old.server.host != new.server.host { keys.append("server.host") }
        if old.server.port != new.server.port { keys.append("server.port") }
        if old.server.shutdownGraceSeconds != new.server.shutdownGraceSeconds { keys.append("server.shutdown_grace_seconds") }
        if old.server.requestTimeoutSeconds != new.server.requestTimeoutSeconds { keys.append("server.request_timeout_seconds") }
        if old.server.maxConnections != new.server.maxConnections { keys.append("server.max_connections") }
        if old.server.maxConnectionsPerClient != new.server.maxConnectionsPerClient { keys.append("server.max_connections_per_client") }
        if old.server.firstRequestTimeoutSeconds != new.server.firstRequestTimeoutSeconds { keys.append("server.first_request_timeout_seconds") }
        if old.server.adminPort != new.server.adminPort { keys.append("server.admin_port") }
        if old.server.adminHost != new.server.adminHost { keys.append("server.admin_host") }
        if old.log.level != new.log.level { keys.append("log.level") }
        if old.log.format != new.log.format { keys.append("log.format") }
        // The tracer is bootstrapped once per process (docs/operations.md#tracing).
        if old.tracing.otlpEndpoint != new.tracing.otlpEndpoint { keys.append("tracing.otlp_endpoint") }
        if old.tracing.serviceName != new.tracing.serviceName { keys.append("tracing.service_name") }
        // The store is opened once, at start (docs/operations.md#shared-state).
        if old.state.url != new.state.url { keys.append("state.url") }
        if old.state.password != new.state.password { keys.append("state.password") }
        return keys
    }
}
