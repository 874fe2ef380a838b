import Hummingbird
import Metrics

/// Request counts, latency histograms and the in-flight gauge, labelled by route template, method and status. Recorded
/// after `ProblemAnswer`, so that the status is the one the client receives.
struct RequestMetrics: Sendable {
    /// Created after `BridgeMetrics.bootstrap()`, so it is bound to the Prometheus registry rather than the no-op backend.
    private let inFlight = Meter(label: "kakao_bridge_requests_in_flight")
    private let meters = RequestMeters()

    func started() { inFlight.increment() }

    func finished(_ request: Request, _ context: BridgeRequestContext, status: Int, since start: ContinuousClock.Instant) {
        inFlight.decrement()
        let meters = meters.meters(route: RouteLabel.route(context), method: RouteLabel.method(request.method), status: status)
        meters.requests.increment()
        meters.duration.record(duration: ContinuousClock.now - start + context.admissionWait)
    }
}
