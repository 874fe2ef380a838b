import CurlHTTP
import Synchronization
import Tracing

/// Tracing (docs/operations.md#tracing): off unless `tracing.otlp_endpoint` is set, in which case the production binary
/// bootstraps an OTLP tracer through `RequestTracing.bootstrap` before the server starts. Only the API
/// (swift-distributed-tracing) is known here; the exporter lives in the `kakao-bridge` executable alone.
///
/// Off, nothing is created: the edge checks `isOn` (one relaxed atomic load) before it reads a header or starts a span,
/// and an upstream call checks its `CallContext.trace` (nil) before anything else.
public enum RequestTracing {
    private static let on = Atomic<Bool>(false)

    /// Whether a tracer was bootstrapped (once per process, never undone).
    public static var isOn: Bool { on.load(ordering: .relaxed) }

    /// Bootstraps the process-wide tracer and turns tracing on. Once per process, before the server starts.
    public static func bootstrap(_ tracer: some Tracer) {
        InstrumentationSystem.bootstrap(tracer)
        on.store(true, ordering: .relaxed)
    }

    /// The caller's trace context from a W3C `traceparent` value, or an empty context (a new trace) when the value is
    /// absent or not valid. Only the validated `traceparent` is handed to the propagator: never another header, so no
    /// log line of the tracer can carry a token.
    public static func incoming(traceparent: String?) -> ServiceContext {
        var context = ServiceContext.topLevel
        guard let traceparent, W3CTraceParent.isValid(traceparent) else { return context }
        InstrumentationSystem.instrument.extract(["traceparent": traceparent], into: &context, using: DictionaryExtractor())
        return context
    }
}

extension RequestTracing {
    /// The trace and span ids of a span's context, as `traceparent` carries them (32 and 16 lower-case hex digits), for
    /// the request's log lines (docs/operations.md#tracing); nil when the tracer puts no valid `traceparent` out. Read
    /// through the propagator, so that only the API is known here, whatever the exporter.
    public static func identifiers(of context: ServiceContext) -> (traceID: String, spanID: String)? {
        var carrier: [(String, String)] = []
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: HeaderListInjector())
        guard let value = carrier.first(where: { $0.0.lowercased() == "traceparent" })?.1, W3CTraceParent.isValid(value)
        else { return nil }
        let bytes = Array(value.utf8)
        return (String(decoding: bytes[3..<35], as: UTF8.self), String(decoding: bytes[36..<52], as: UTF8.self))
    }
}

/// `traceparent` as W3C Trace Context level 1 defines it: `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`,
/// lower-case, ids not all zero. Anything else is ignored (the request starts a new trace).
public enum W3CTraceParent {
    public static func isValid(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-")
        else { return false }
        func hex(_ range: Range<Int>) -> Bool {
            bytes[range].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        func zero(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 == 0x30 } }
        return hex(0..<2) && bytes[0] == 0x30 && bytes[1] == 0x30 && hex(3..<35) && hex(36..<52) && hex(53..<55)
            && !zero(3..<35) && !zero(36..<52)
    }
}

private struct DictionaryExtractor: Extractor {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}

private struct HeaderListInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
        carrier.removeAll { $0.0.lowercased() == key.lowercased() }
        carrier.append((key, value))
    }
}

/// One client span per upstream attempt, a child of the request's span, named by the upstream (`kakao`,
/// `identity_toolkit`, …), whose context goes out as `traceparent`. Its attributes are the method, the host and port
/// and the status: never the URL's path or query, a header value, a token or an email.
enum UpstreamSpans {
    static func start(_ upstream: Upstream.Name, _ request: inout HTTPRequest, parent: ServiceContext) -> any Span {
        let span = InstrumentationSystem.tracer.startAnySpan(upstream.rawValue, context: parent, ofKind: .client)
        span.attributes["http.request.method"] = request.method.rawValue
        let (host, port) = hostAndPort(request.url)
        if let host { span.attributes["server.address"] = host }
        if let port { span.attributes["server.port"] = port }
        span.attributes["kakao_bridge.upstream"] = upstream.rawValue
        InstrumentationSystem.instrument.inject(span.context, into: &request.headers, using: HeaderListInjector())
        return span
    }

    static func end(_ spans: [any Span], _ outcomes: [Result<HTTPResponse, HTTPClientError>]) {
        for (span, outcome) in zip(spans, outcomes) { end(span, outcome) }
    }

    static func end(_ span: any Span, _ outcome: Result<HTTPResponse, HTTPClientError>) {
        switch outcome {
        case .success(let response):
            span.attributes["http.response.status_code"] = response.status
            if response.status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        case .failure(let error):
            // The kind only: the client's text could name the URL.
            span.attributes["error.type"] = "\(error.kind)"
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// The host and port of an `http(s)://` URL (without userinfo), or nils when it cannot be read.
    static func hostAndPort(_ url: String) -> (String?, Int?) {
        let lowered = url.lowercased()
        let (rest, defaultPort): (Substring, Int)
        if lowered.hasPrefix("https://") {
            (rest, defaultPort) = (lowered.dropFirst(8), 443)
        } else if lowered.hasPrefix("http://") {
            (rest, defaultPort) = (lowered.dropFirst(7), 80)
        } else {
            return (nil, nil)
        }
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            return (host, after.hasPrefix(":") ? Int(after.dropFirst()) ?? defaultPort : defaultPort)
        }
        if let colon = authority.lastIndex(of: ":") {
            return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]) ?? defaultPort)
        }
        return (String(authority), defaultPort)
    }
}
