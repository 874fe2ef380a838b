import Hummingbird
import Metrics

/// Request counts, latency histograms and the in-flight gauge, labelled by route template, method and status.
/// Sits outside `ProblemMiddleware` so that the status is the one the client receives.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = BridgeRequestContext

    /// Created after `BridgeMetrics.bootstrap()`, so it is bound to the Prometheus registry rather than the no-op backend.
    private let inFlight = Meter(label: "kakao_bridge_requests_in_flight")
    private let meters = RequestMeters()

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        inFlight.increment()
        defer { inFlight.decrement() }
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: response.status.code, since: start)
            return response
        } catch {
            // Only reached for errors `ProblemMiddleware` did not see; Hummingbird answers them with 500.
            record(request, context, status: 500, since: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let meters = meters.meters(route: RouteLabel.route(context), method: RouteLabel.method(request.method), status: status)
        meters.requests.increment()
        meters.duration.record(duration: ContinuousClock.now - start + context.admissionWait)
    }
}
