import BridgeFeatures
import HTTPTypes
import Hummingbird
import Upstreams

extension Router where Context == BridgeRequestContext {
    /// Answers the other methods on a known path with 405 and `Allow`, instead of a misleading 404.
    /// `route` as the route table declares it: `handler` for each of its methods, 405 with `Allow` for the others.
    func add(_ route: Route, use handler: @escaping @Sendable (Request, Context) async throws -> Response) {
        for method in route.answeredMethods { on(RouterPath(route.path), method: method, use: handler) }
        refuseOtherMethods(route)
    }

    /// The methods the route table does not list for `route` are 405 with `Allow`.
    func refuseOtherMethods(_ route: Route) {
        refuseOtherMethods(RouterPath(route.path), allow: route.methods.map(\.rawValue))
    }

    func refuseOtherMethods(_ path: RouterPath, allow: [String]) {
        let all: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .options]
        for method in all where !allow.contains(method.rawValue) && !(method == .head && allow.contains("GET")) {
            on(path, method: method) { _, _ -> Response in throw Problem.methodNotAllowed(allow: allow) }
        }
    }
}

/// Every route of `listeners` and its controller, each controller given the one feature it uses, read from the current
/// set per request. Which routes wait their turn, which the rate limit skips, which listener serves them and the metric
/// labels are the route table's (`Route`).
func buildRouter(
    holder: FeatureHolder, storeHealth: StoreHealth = StoreHealth(), listeners: Set<Route.Listener> = Set(Route.Listener.allCases)
) -> Router<BridgeRequestContext> {
    let router = Router(context: BridgeRequestContext.self)
    router.add(middleware: EdgeMiddleware(holder: holder))
    if listeners.contains(.public) {
        let hookLimit = HookRateLimit()
        TokenExchangeController(login: holder.live { $0.login }).register(on: router)
        // Paths of their own under the legacy route's `/v1/kakao/{access_token}`: never taken for a token, on or off.
        UnlinkController(unlink: holder.live { $0.unlink }).register(on: router)
        SecurityEventController(events: holder.live { $0.securityEvents }).register(on: router)
        NaverUnlinkController(unlink: holder.live { $0.naverUnlink }).register(on: router)
        KakaoNonceController(nonces: holder.live { $0.nonces }).register(on: router)
        LegacyController(login: holder.live { $0.legacyLogin }).register(on: router)
        LoginCompleteController(hook: holder.live { $0.hook }, hookLimit: hookLimit).register(on: router)
        RevokeController(revocation: holder.live { $0.revocation }, hookLimit: hookLimit).register(on: router)
        UserDeletionController(deletion: holder.live { $0.deletion }, hookLimit: hookLimit).register(on: router)
        SelfDeletionController(deletion: holder.live { $0.deletion }).register(on: router)
    }
    if listeners.contains(.admin) {
        HealthController(holder: holder, storeHealth: storeHealth).register(on: router)
        MetricsEndpoint().register(on: router)
    }
    return router
}
