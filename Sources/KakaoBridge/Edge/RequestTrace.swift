import HTTPTypes
import Hummingbird
import Logging
import Tracing
import Upstreams

/// The request's span when tracing is on (docs/operations.md#tracing): started by `EdgeMiddleware` as the request
/// arrives, a child of the caller's span when its `traceparent` is valid, named by the method and the route template
/// (`GET /v1/token-exchange`: never the raw path, which on the legacy route carries the token), and ended with the
/// status the client gets. Its context is what each upstream call's span descends from (`CallContext.trace`).
///
/// A class, so that the request context holds one reference (nil when tracing is off) however much a span holds.
public final class RequestTrace: Sendable {
    let span: any Span
    public var context: ServiceContext { span.context }

    @inline(never)
    init(_ request: Request, route matched: Route?) {
        let parent = RequestTracing.incoming(traceparent: request.headers[.traceparent])
        let method = RouteLabel.method(request.method)
        let route = matched?.path
        span = InstrumentationSystem.tracer.startAnySpan(route.map { "\(method) \($0)" } ?? method, context: parent, ofKind: .server)
        span.attributes["http.request.method"] = method
        if let route { span.attributes["http.route"] = route }
    }

    /// The request's logger carries the trace and span ids from here on: every line of the request leads to its span.
    @inline(never)
    func label(_ logger: inout Logger) {
        guard let ids = RequestTracing.identifiers(of: span.context) else { return }
        logger[metadataKey: "trace_id"] = .string(ids.traceID)
        logger[metadataKey: "span_id"] = .string(ids.spanID)
    }

    @inline(never)
    func end(status: Int) {
        span.attributes["http.response.status_code"] = status
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }
}

extension HTTPField.Name {
    static let traceparent = HTTPField.Name("traceparent")!
}
