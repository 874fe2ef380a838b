import BridgeFeatures
import BridgeSupport
import Logging
import ServiceLifecycle
import Upstreams

/// `firebase.signer: iam`: the features need the account and project the metadata server names, and a first access
/// token (docs/api.md#keyless-signing-on-google-cloud). The server listens at once; until the metadata server has
/// answered, `/readyz` and every route answer 503 `not_ready` with the reason. Retries with backoff, like the certificate
/// prefetch, and is idle once features are installed (or a reload installed some first): a service that returns would
/// end the service group.
struct KeylessStartService: Service, CustomStringConvertible {
    let holder: FeatureHolder
    let config: BridgeConfig
    let upstreams: BridgeUpstreams
    let environment: BridgeEnvironment
    let assembly: FeatureAssembly

    /// The synthesised description would print the whole configuration, secrets included.
    var description: String { "KeylessStartService" }

    func run() async throws {
        await startUp()
        try await gracefulShutdown()
    }

    private func startUp() async {
        let logger = environment.logger
        var pause = Duration.seconds(1)
        var attempts = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled, holder.current == nil {
            attempts += 1
            do throws(Problem) {
                let account = try await KeylessAccount.resolve(
                    config, upstreams: upstreams, clock: environment.clock, context: CallContext(requestID: "keyless-start")
                )
                install(account, logger: logger)
                return
            } catch {
                holder.waiting(for: KeylessAccount.waiting(for: error))
                // The first failure is a warning (the metadata server may be a moment late, as on GKE at pod start);
                // every tenth after it is an error. The detail names no account and no token.
                if attempts == 1 || attempts % 10 == 0 {
                    logger.log(
                        level: attempts == 1 ? .warning : .error, "keyless signing: the metadata server has not answered; not ready",
                        metadata: ["code": "\(error.code.rawValue)", "reason": "\(error.detail)", "attempts": LogValue.int(attempts)]
                    )
                }
            }
            let wait = pause
            pause = min(pause * 2, .seconds(30))
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                return
            }
        }
    }

    private func install(_ account: KeylessAccount, logger: Logger) {
        do {
            let features = try assembly.assemble(config, upstreams: upstreams, keyless: account, logger: logger)
            if holder.installFirst(features) {
                logger.info("keyless signing ready", metadata: ["signer": "iam", "project_id": "\(features.config.firebase.projectID)"])
            }
        } catch {
            // Nothing of assemble fails for a keyless account today; should it, say why and stay not ready.
            holder.waiting(for: "Keyless signing (firebase.signer: iam): \(error.description)")
            logger.error("keyless signing: the service cannot start", metadata: ["reason": "\(error.description)"])
        }
    }
}
