import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

extension BridgeApplication {
    /// Runs the service until SIGTERM or SIGINT, then drains: readiness turns 503 at once, the listener closes, requests in
    /// flight get `server.shutdown_grace_seconds` to finish, and the function returns (the process exits 0). What is still
    /// running after the grace period is cancelled.
    public func runUntilTerminated(graceSeconds: Int) async throws {
        try await drainOnTermination(self, graceSeconds: graceSeconds, logger: logger)
    }
}

private func drainOnTermination(_ app: BridgeApplication, graceSeconds: Int, logger: Logger) async throws {
    var configuration = ServiceGroupConfiguration(
        services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
    )
    configuration.maximumGracefulShutdownDuration = .seconds(max(graceSeconds, 0))
    do {
        try await ServiceGroup(configuration: configuration).run()
    } catch where app.holder.isDraining {
        // Past the grace period the group cancels what is left; that is the documented outcome, not a failure.
        logger.warning("shutdown: grace period ended with requests still running", metadata: ["error_type": "\(type(of: error))"])
    }
    logger.info("stopped")
}
