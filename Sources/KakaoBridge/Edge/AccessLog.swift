import BridgeSupport
import Hummingbird
import Logging
import Upstreams

/// One line per request through the request's logger (which carries `request_id`): method, matched route template,
/// status, the problem's code when it failed, duration, client address and the wall time spent on each upstream
/// (docs/operations.md#reading-the-logs). The raw path and query are never logged: the legacy route's path is a token,
/// and a refused query string may hold one too. Numbers are JSON numbers (`LogValue`).
struct AccessLog: Sendable {
    func log(_ request: Request, _ context: BridgeRequestContext, status: Int, problem: String?, since start: ContinuousClock.Instant) {
        // Operators who turn access lines off (level warning) should not pay for building them.
        guard context.logger.logLevel <= .info else { return }
        // A login's wait for its turn (`RequestAdmission`) is part of what the client waited.
        let elapsed = ContinuousClock.now - start + context.admissionWait
        var metadata: Logger.Metadata = [
            "method": .string(RouteLabel.method(request.method)),
            "route": .string(RouteLabel.route(context)),
            "status": LogValue.int(status),
            "duration_ms": LogValue.number(Self.rounded(elapsed.milliseconds)),
            "client": .string(context.clientAddress),
        ]
        // One of docs/errors.md's codes (a closed set): why the request failed, where the status alone cannot tell
        // `kakao_quota_exceeded` from `kakao_unavailable`.
        if let problem { metadata["code"] = .string(problem) }
        if context.admissionWait > .zero {
            metadata["queued_ms"] = LogValue.number(Self.rounded(context.admissionWait.milliseconds))
        }
        // Each upstream's wall time: calls sent together count once (`UpstreamTimings`).
        let upstreams = context.timings.snapshot
        if !upstreams.isEmpty {
            metadata["upstream_ms"] = .dictionary(upstreams.mapValues { LogValue.number(Self.rounded($0)) })
        }
        context.logger.info("request", metadata: metadata)
    }

    /// Microsecond precision is plenty and keeps lines short.
    private static func rounded(_ milliseconds: Double) -> Double { (milliseconds * 1000).rounded() / 1000 }
}
