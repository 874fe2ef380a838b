import BridgeSupport
import Hummingbird
import Logging
import Upstreams

/// One line per request through the request's logger (which carries `request_id`): method, matched route template,
/// status, duration, client address and the time spent per upstream. The raw path and query are never logged: the
/// legacy route's path is a token, and a refused query string may hold one too.
struct AccessLog: Sendable {
    func log(_ request: Request, _ context: BridgeRequestContext, status: Int, since start: ContinuousClock.Instant) {
        // Operators who turn access lines off (level warning) should not pay for building them.
        guard context.logger.logLevel <= .info else { return }
        // A login's wait for its turn (`LoginAdmission`) is part of what the client waited.
        let elapsed = ContinuousClock.now - start + context.admissionWait
        var metadata: Logger.Metadata = [
            "method": .string(RouteLabel.method(request.method)),
            "route": .string(RouteLabel.route(context)),
            "status": .stringConvertible(status),
            "duration_ms": .stringConvertible(Self.rounded(elapsed.milliseconds)),
            "client": .string(context.clientAddress),
        ]
        if context.admissionWait > .zero {
            metadata["queued_ms"] = .stringConvertible(Self.rounded(context.admissionWait.milliseconds))
        }
        let upstreams = context.timings.snapshot
        if !upstreams.isEmpty {
            metadata["upstream_ms"] = .dictionary(upstreams.mapValues { .stringConvertible(Self.rounded($0)) })
        }
        context.logger.info("request", metadata: metadata)
    }

    /// Microsecond precision is plenty and keeps lines short.
    private static func rounded(_ milliseconds: Double) -> Double { (milliseconds * 1000).rounded() / 1000 }
}
