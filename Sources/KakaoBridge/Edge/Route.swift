import BridgeFeatures
import HTTPTypes
import Hummingbird
import Upstreams

/// Every route of the service, declared once (docs/api.md): its path (the template the router matches, and the
/// `route` label of metrics and access lines), its methods, how it gets past the server loop, what the per-client
/// rate limit does with it, which listener serves it and whether browsers of other origins may call it. The router
/// (`buildRouter`), the admission gate (`RequestAdmission`), the rate limiter (`ClientRateLimit`), the cross-origin step
/// (`CrossOrigin`) and the metrics all read this table, so a new route is one new case here.
enum Route: String, CaseIterable, Sendable {
    case tokenExchange = "/v1/token-exchange"
    /// Fixed paths under `/v1/kakao/` before the legacy route's template: never taken for a token, on or off.
    case kakaoNonce = "/v1/kakao/nonce"
    case kakaoUnlink = "/v1/kakao/unlink"
    case kakaoEvents = "/v1/kakao/events"
    case naverUnlink = "/v1/naver/unlink"
    case legacy = "/v1/kakao/{access_token}"
    case loginComplete = "/v1/login-complete"
    case revoke = "/v1/users/revoke"
    case deleteUser = "/v1/users/delete"
    case deleteMe = "/v1/me/delete"
    case healthz = "/healthz"
    case readyz = "/readyz"
    case metrics = "/metrics"

    /// How a request gets past the server loop (`RequestAdmission` says why).
    enum Admission: Sendable {
        /// Waits its turn among the logins, then runs in a child task.
        case login
        /// Runs in a child task at once: apps call it on the connection their login will use.
        case child
        /// Runs in the connection's task.
        case inPlace
    }

    /// What `rate_limit.per_client_per_minute` does with a request (`ClientRateLimit`).
    enum ClientLimit: Sendable {
        case applies
        /// Callers that must never be told to back off (probes, the scrape) or that authenticate and then take from a
        /// budget of their own (the hook-secret routes, `rate_limit.hook_per_minute`).
        case exempt
        /// Exempt once authenticated; a refused authentication spends from the client's bucket (Kakao's webhook).
        case refusalsCharged
    }

    /// Which listener serves a route once `server.admin_port` is set (docs/operations.md#the-admin-port); until then
    /// the public one serves them all.
    enum Listener: Sendable, CaseIterable {
        case `public`
        /// The probes and the scrape: the public port then answers them 404, as it answers any path it does not serve.
        case admin
    }

    /// Whether browsers may call the route from the web origins of `server.cors_origins` (docs/api.md#web-clients-cors).
    enum CrossOrigin: Sendable {
        /// Its answers carry `Access-Control-Allow-Origin` for a listed origin, and a preflight is answered.
        case allowed
        /// No CORS header, ever: a browser page of another origin cannot read its answers.
        case sameOriginOnly
    }

    var path: String { rawValue }

    var methods: [HTTPRequest.Method] {
        switch self {
        case .tokenExchange, .kakaoNonce, .legacy, .healthz, .readyz, .metrics: [.get]
        case .kakaoUnlink: [.get, .post]
        case .loginComplete, .revoke, .kakaoEvents, .naverUnlink, .deleteUser, .deleteMe: [.post]
        }
    }

    /// What the router answers: `methods`, and HEAD wherever GET is, as that GET without its body (RFC 9110 §9.3.2;
    /// docs/api.md#conventions). The body is dropped by `EdgeMiddleware`, so a HEAD runs exactly the GET's route.
    var answeredMethods: [HTTPRequest.Method] { methods.contains(.get) ? methods + [.head] : methods }

    var admission: Admission {
        switch self {
        case .tokenExchange, .legacy: .login
        case .kakaoNonce: .child
        case .kakaoUnlink, .kakaoEvents, .naverUnlink, .loginComplete, .revoke, .deleteUser, .deleteMe, .healthz, .readyz, .metrics:
            .inPlace
        }
    }

    var clientLimit: ClientLimit {
        switch self {
        case .tokenExchange, .kakaoNonce, .legacy, .deleteMe: .applies
        case .kakaoUnlink, .naverUnlink: .refusalsCharged
        // Kakao's SETs prove themselves by signature, and Kakao must never be told to back off.
        case .kakaoEvents, .loginComplete, .revoke, .deleteUser, .healthz, .readyz, .metrics: .exempt
        }
    }

    var listener: Listener {
        switch self {
        case .healthz, .readyz, .metrics: .admin
        case .tokenExchange, .kakaoNonce, .kakaoUnlink, .kakaoEvents, .naverUnlink, .legacy, .loginComplete, .revoke, .deleteUser,
             .deleteMe: .public
        }
    }

    /// What a web app calls: the exchange, and the nonce its Kakao login needs first. The legacy route carries the token in
    /// its path; the others are called by servers.
    var crossOrigin: CrossOrigin {
        switch self {
        case .tokenExchange, .kakaoNonce: .allowed
        // An account's deletion is the backend's call, or the app's own (native apps need no CORS).
        case .kakaoUnlink, .kakaoEvents, .naverUnlink, .legacy, .loginComplete, .revoke, .deleteUser, .deleteMe, .healthz, .readyz,
             .metrics: .sameOriginOnly
        }
    }

    /// The route a raw path reaches, as the router would match it; for the admission gate, which runs before the router.
    /// A fixed path wins over the legacy template; the template takes exactly one non-empty segment.
    static func match(_ path: Substring) -> Route? {
        if let fixed = fixedPaths[path] { return fixed }
        guard path.hasPrefix(legacyPrefix) else { return nil }
        let rest = path.dropFirst(legacyPrefix.count)
        return !rest.isEmpty && !rest.contains("/") ? .legacy : nil
    }

    /// The route a matched template names (`RouteLabel`); `nil` for no route.
    init?(template: String) { self.init(rawValue: template) }

    private static let legacyPrefix = "/v1/kakao/"
    private static let fixedPaths: [Substring: Route] = Dictionary(
        uniqueKeysWithValues: allCases.filter { $0 != .legacy }.map { (Substring($0.path), $0) }
    )
}
