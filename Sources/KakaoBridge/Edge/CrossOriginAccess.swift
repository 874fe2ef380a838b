import Hummingbird

/// CORS for web apps (docs/api.md#web-clients-cors): the routes `Route.crossOrigin` allows answer the origins listed in
/// `server.cors_origins`, matched exactly, and nothing else gets a CORS header. A step of `EdgeMiddleware`, not
/// Hummingbird's `CORSMiddleware`: that one would be a middleware of its own (a frame every waiting login holds,
/// docs/benchmarks.md#memory-and-speed-rules-in-the-code), applies to every route, answers any origin's preflight with
/// the allowed methods and headers, is fixed at start where the origins reload with the configuration, and wraps the
/// route's failure in an error `ProblemAnswer` would not recognise.
enum CrossOriginAccess {
    /// What a page may send besides the safelisted headers: the Kakao token (`Authorization: Bearer`).
    static let allowedHeaders = "Authorization"
    /// What a page may read besides the safelisted headers: the id of the request (for support) and how long to back
    /// off after a 429.
    static let exposedHeaders = "X-Request-ID, Retry-After"
    /// How long a browser may reuse a preflight's answer (browsers cap it: Chromium at 2 hours); an origin removed from the
    /// list is refused at once anyway, since the real request's answer then has no `Access-Control-Allow-Origin`.
    static let maxAgeSeconds = "3600"

    /// The listed origin a request of a route browsers may call comes from; nil for any other request.
    static func allowedOrigin(_ request: Request, _ context: BridgeRequestContext, origins: [String]) -> String? {
        guard !origins.isEmpty, let origin = request.headers[.origin], origins.contains(origin),
              context.route?.crossOrigin == .allowed
        else { return nil }
        return origin
    }

    /// A preflight from a listed origin, answered 204 with what the route takes (`allow` adds the origin on the way back,
    /// as to every answer); nil for anything else, which goes on to the router (an `OPTIONS` it does not take is 405 there).
    static func preflight(_ request: Request, _ context: BridgeRequestContext, origins: [String]) -> Response? {
        guard request.method == .options, request.headers[.accessControlRequestMethod] != nil,
              allowedOrigin(request, context, origins: origins) != nil,
              let route = context.route
        else { return nil }
        var headers = HTTPFields()
        headers[.accessControlAllowMethods] = route.methods.map(\.rawValue).joined(separator: ", ")
        headers[.accessControlAllowHeaders] = allowedHeaders
        headers[.accessControlMaxAge] = maxAgeSeconds
        return Response(status: .noContent, headers: headers)
    }

    /// On the way back, whatever the status (a page must be able to read a problem): the origin is allowed to read the
    /// answer. Answers to other origins are left alone; every answer of these routes is `Cache-Control: no-store`, so no
    /// cache can hand one origin's answer to another.
    static func allow(_ response: inout Response, origin: String) {
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = exposedHeaders
        response.headers[values: .vary].append("Origin")
    }
}
