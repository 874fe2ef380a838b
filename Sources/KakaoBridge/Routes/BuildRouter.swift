import BridgeFeatures
import Hummingbird

/// Every route and its controller, each controller given the one feature it uses, read from the current set per request.
/// Which routes wait their turn, which the rate limit skips and the metric labels are the route table's (`Route`).
func buildRouter(holder: FeatureHolder) -> Router<BridgeRequestContext> {
    let router = Router(context: BridgeRequestContext.self)
    router.add(middleware: EdgeMiddleware(holder: holder))
    let hookLimit = HookRateLimit()
    TokenExchangeController(login: holder.live { $0.login }).register(on: router)
    // Paths of their own under the legacy route's `/v1/kakao/{access_token}`: never taken for a token, on or off.
    UnlinkController(unlink: holder.live { $0.unlink }).register(on: router)
    KakaoNonceController(nonces: holder.live { $0.nonces }).register(on: router)
    LegacyController(login: holder.live { $0.legacyLogin }).register(on: router)
    LoginCompleteController(hook: holder.live { $0.hook }, hookLimit: hookLimit).register(on: router)
    RevokeController(revocation: holder.live { $0.revocation }, hookLimit: hookLimit).register(on: router)
    HealthController(holder: holder).register(on: router)
    MetricsEndpoint().register(on: router)
    return router
}
