import Hummingbird
import Logging
import ServiceLifecycle
import UnixSignals

extension BridgeApplication {
    /// Runs the service until SIGTERM or SIGINT, then drains: readiness turns 503 at once, the listener closes, requests in
    /// flight get `server.shutdown_grace_seconds` to finish, and the function returns (the process exits 0). What is still
    /// running after the grace period is cancelled. `services` (the trace exporter) run beside it, started before it
    /// and stopped after it, so that they see its last requests.
    public func runUntilTerminated(graceSeconds: Int, alongside services: [any Service] = []) async throws {
        try await drainOnTermination(self, services, graceSeconds: graceSeconds, logger: logger)
    }
}

private func drainOnTermination(_ app: BridgeApplication, _ services: [any Service], graceSeconds: Int, logger: Logger) async throws {
    // A group stops its services in reverse order: the application first, then what runs beside it.
    var configuration = ServiceGroupConfiguration(
        services: services + [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
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
