import BridgeSupport
import Hummingbird
import Metrics

/// Request counts, latency histograms and the in-flight gauge, labelled by route template, method and status. Recorded
/// after `ProblemAnswer`, so that the status is the one the client receives.
struct RequestMetrics: Sendable {
    /// Created after `BridgeMetrics.bootstrap()`, so it is bound to the Prometheus registry rather than the no-op backend.
    private let inFlight = Meter(label: MetricName.requestsInFlight.rawValue)
    private let meters = RequestMeters()
    private let problems = ProblemMeters()

    func started() { inFlight.increment() }

    /// `problem`: the code of the problem answered (`kakao_bridge_problems_total`), nil when the answer is none.
    func finished(_ request: Request, _ context: BridgeRequestContext, status: Int, problem: String?, since start: ContinuousClock.Instant) {
        inFlight.decrement()
        let route = RouteLabel.route(context)
        let meters = meters.meters(route: route, method: RouteLabel.method(request.method), status: status)
        meters.requests.increment()
        meters.duration.record(duration: ContinuousClock.now - start + context.admissionWait)
        if let problem { problems.counter(route: route, code: problem).increment() }
    }
}

/// The request counter and latency timer of each (route, method, status), made once and then reused: building a
/// `Counter` or `Timer` looks it up in the Prometheus registry under a lock, which is wasted work on every request.
/// Bounded because each label is: route templates, a fixed set of methods, three-digit status codes.
final class RequestMeters: Sendable {
    struct Key: Hashable, Sendable {
        var route: String
        var method: String
        var status: Int
    }

    struct Meters: Sendable {
        let requests: Counter
        let duration: Timer
    }

    private let made = FirstUseTable<Key, Meters>()

    func meters(route: String, method: String, status: Int) -> Meters {
        made.value(for: Key(route: route, method: method, status: status)) {
            let dimensions = [("route", route), ("method", method), ("status", String(status))]
            return Meters(
                requests: Counter(label: MetricName.requests.rawValue, dimensions: dimensions),
                duration: Timer(label: MetricName.requestDuration.rawValue, dimensions: dimensions)
            )
        }
    }
}

/// Label values that are safe for metrics and logs: the matched route template (never the raw path, which on the legacy
/// route holds a token) and a closed set of methods (an arbitrary method token would grow the label set without bound).
enum RouteLabel {
    static let unmatched = "unmatched"

    static func route(_ context: BridgeRequestContext) -> String { context.route?.rawValue ?? unmatched }

    /// The route the router matched, read once per request into `BridgeRequestContext.route` by `EdgeMiddleware`:
    /// every later step (the rate limit, CORS, the span, the metrics, the access line) reads it from there.
    static func matched(_ context: some RequestContext) -> Route? {
        guard let path = context.endpointPath, path != "NotFound", path.hasPrefix("/") else { return nil }
        return Route(template: path)
    }

    static func method(_ method: HTTPRequest.Method) -> String {
        switch method {
        case .get, .post, .put, .delete, .patch, .head, .options: method.rawValue
        default: "other"
        }
    }
}
