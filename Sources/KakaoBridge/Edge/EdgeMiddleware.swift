import BridgeFeatures
import BridgeSupport
import Hummingbird
import Upstreams

/// What every request goes through on its way to its route, in order: an id (`RequestIDs`), the real client
/// (`ClientAddress`), the in-flight gauge, the path's one spelling (`CanonicalPath`), the client's rate limit
/// (`ClientRateLimit`), a browser's preflight answered (`CrossOriginAccess`); and on its way back: a refused
/// unlink-webhook call charged to that limit (`ClientRateLimit.charge`), any failure as a problem body (`ProblemAnswer`),
/// then the metrics (`RequestMetrics`, the problem counter `ProblemMeters`) and the access line (`AccessLog`), so that
/// they see the status and the problem code the client gets,
/// and the id and a listed web origin's CORS headers in the answer. With tracing on, the request's span
/// (`RequestTrace`) starts with the id and ends with the access line.
///
/// One middleware, not six: each of Hummingbird's middlewares is an async frame (with its responder's) that a login
/// holds while it waits on Kakao (docs/benchmarks.md#memory-and-speed-rules-in-the-code). Each step is
/// synchronous and lives in its own file; only the call to the route is awaited here.
struct EdgeMiddleware: RouterMiddleware {
    typealias Context = BridgeRequestContext

    let holder: FeatureHolder
    let rateLimit = ClientRateLimit()
    let metrics = RequestMetrics()
    let accessLog = AccessLog()

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        // Read once (a lock): the client address and the rate limit see the same configuration.
        let features = holder.current
        let context = arrived(request, context, features)
        let response: Response
        do {
            try Self.requireCanonical(request)
            try rateLimit.check(context, perMinute: features?.config.rateLimit.perClientPerMinute ?? 0)
            if let preflight = Self.preflight(request, context, features) {
                response = preflight
            } else {
                response = try await next(request, context)
            }
        } catch {
            return failed(error, request, context, since: start)
        }
        return answered(response, request, context, problem: nil, since: start)
    }

    // Out of line: what an async function computes in its own body can end up in its frame.

    @inline(never)
    private func arrived(_ request: Request, _ context: Context, _ features: Features?) -> Context {
        var context = context
        context.route = RouteLabel.matched(context)
        RequestIDs.assign(request, &context)
        // Off (no `tracing.otlp_endpoint`), one atomic load and nothing else (docs/operations.md#tracing).
        if RequestTracing.isOn {
            let trace = RequestTrace(request, route: context.route)
            context.trace = trace
            // Every line of the request's logger then leads to its trace (docs/operations.md#tracing).
            trace.label(&context.logger)
        }
        ClientAddress.assign(request, &context, trusted: features?.config.server.trustedProxies ?? [])
        metrics.started()
        return context
    }

    /// After the rate limit: a browser's preflight from a listed origin is answered here (`CrossOriginAccess`).
    @inline(never)
    private static func preflight(_ request: Request, _ context: Context, _ features: Features?) -> Response? {
        CrossOriginAccess.preflight(request, context, origins: features?.config.server.corsOrigins ?? [])
    }

    /// HEAD is its GET without the body: the headers stay, `Content-Length` the GET's (RFC 9110 §9.3.2).
    @inline(never)
    private static func dropBody(_ response: inout Response) {
        let length = response.headers[.contentLength]
        response.body = ResponseBody()
        response.headers[.contentLength] = length
    }

    /// Before the rate limit: another spelling of a route is no route (`CanonicalPath`).
    @inline(never)
    private static func requireCanonical(_ request: Request) throws(Problem) {
        guard CanonicalPath.isCanonical(request.uri.path) else { throw Problem.notFound() }
    }

    /// Any failure as its problem body; the problem's code goes to the access line and the problem counter.
    @inline(never)
    private func failed(_ error: any Error, _ request: Request, _ context: Context, since start: ContinuousClock.Instant) -> Response {
        // The features are read again rather than kept across the await: nothing more is held in this frame per request.
        let perMinute = holder.current?.config.rateLimit.perClientPerMinute ?? 0
        let problem = ProblemAnswer.problem(for: rateLimit.charge(error, context, perMinute: perMinute), context: context)
        let response = ProblemAnswer.response(for: problem, requestID: context.requestID)
        return answered(response, request, context, problem: problem.code.rawValue, since: start)
    }

    /// `problem`: the code of the problem answered, nil for an answer that is none.
    @inline(never)
    private func answered(
        _ response: Response, _ request: Request, _ context: Context, problem: String?, since start: ContinuousClock.Instant
    ) -> Response {
        metrics.finished(request, context, status: response.status.code, problem: problem, since: start)
        accessLog.log(request, context, status: response.status.code, problem: problem, since: start)
        context.trace?.end(status: response.status.code)
        var response = response
        response.headers[.xRequestID] = context.requestID
        if request.method == .head { Self.dropBody(&response) }
        // Only a request that names an origin pays for reading the list (the features are not kept across the await).
        if request.headers[.origin] != nil,
           let origin = CrossOriginAccess.allowedOrigin(request, context, origins: holder.current?.config.server.corsOrigins ?? [])
        {
            CrossOriginAccess.allow(&response, origin: origin)
        }
        return response
    }
}
