import BridgeCommandLine
import BridgeJSON
import BridgeSupport
import FoundationEssentials
import KakaoBridge
import StandIns

/// Kakao OpenID Connect next to the access-token login (docs/api.md#kakao-id-tokens): the same user logs in both ways, and
/// the Kakao stand-in's counters say what each cost in calls to Kakao's API (two, and none).
extension DemoWalk {
    mutating func compareOIDCLogin() async {
        let user = SandboxWorld.validUser
        let kakao = world.standIns.kakao
        let backend = world.standIns.backend
        Console.out("Kakao OpenID Connect: the same login with a Kakao ID token instead of the access token")
        guard let audience = SandboxOIDC.audience(world.config) else {
            detail("skipped", "kakao.oidc.audiences is empty in the sandbox's configuration")
            Console.out("")
            return
        }

        // A fresh access token, so that the verification cache does not hide what a first login costs.
        let accessToken = kakao.issueToken(for: user)
        let accessBefore = kakao.apiCalls
        let accessAnswer = await get("/v1/token-exchange", token: accessToken)
        let accessCalls = kakao.apiCalls - accessBefore

        let jwksBefore = kakao.jwksCalls
        guard let login = await SandboxOIDC.login(world: world, bridgeURL: bridgeURL, user: user) else {
            detail("nonce", "GET /v1/kakao/nonce did not answer 200")
            failures.append("OpenID Connect: no nonce from GET /v1/kakao/nonce")
            Console.out("")
            return
        }
        detail("nonce", "GET \(bridgeURL)/v1/kakao/nonce -> \(TokenDisplay.shorten(login.nonce))   (the app passes it to the Kakao SDK's login)")
        detail("ID token", "\(TokenDisplay.shorten(login.idToken))   signed by Kakao (the stand-in) for app key \(audience)")
        if let decoded = TokenDisplay.decodeJWT(login.idToken) {
            var claims = decoded.claims
            if let email = claims["email"]?.stringValue { claims["email"] = .string(Self.shortenEmail(email)) }
            if let nonce = claims["nonce"]?.stringValue { claims["nonce"] = .string(TokenDisplay.shorten(nonce)) }
            detail("claims", TokenDisplay.json(claims))
        }
        backend.resetCounters()
        let oidcBefore = kakao.apiCalls
        let oidcAnswer = await get("/v1/token-exchange", token: login.idToken)
        let oidcCalls = kakao.apiCalls - oidcBefore
        let keyFetches = kakao.jwksCalls - jwksBefore
        let uid = oidcAnswer?.json?["uid"]?.stringValue

        detail("access token", "GET /v1/token-exchange -> \(accessAnswer?.status ?? 0)   Kakao API calls: \(accessCalls)")
        detail("ID token", "GET /v1/token-exchange -> \(oidcAnswer?.status ?? 0)   Kakao API calls: \(oidcCalls)   "
            + "(Kakao's keys fetched \(keyFetches)×, then cached for their max-age)")
        detail("hook", "the backend's POST /v1/login-complete with the ID token as kakao_token -> "
            + (backend.lastHookStatus.map { "\($0)" } ?? "no answer"))
        let replay = await get("/v1/token-exchange", token: login.idToken)
        detail("replay", "the same ID token again -> \(replay?.status ?? 0) \(replay?.json?["code"]?.stringValue ?? "") (its nonce is used)")
        let expectedUID = world.config.kakao.uidPrefix + String(user.id)
        if accessAnswer?.status == 200, oidcAnswer?.status == 200, uid == expectedUID, accessCalls == 2, oidcCalls == 0,
           backend.lastHookStatus == 200, replay?.status == 401 {
            Console.out("        ok: 2 Kakao calls with the access token, 0 with the ID token")
        } else {
            Console.out("        FAILED")
            failures.append(
                "OpenID Connect: expected 200 with 2 and 0 Kakao calls, the hook's 200 and a refused replay; got "
                    + "\(accessAnswer?.status ?? 0) (\(accessCalls) calls), \(oidcAnswer?.status ?? 0) (\(oidcCalls) calls), "
                    + "hook \(backend.lastHookStatus.map { "\($0)" } ?? "none"), replay \(replay?.status ?? 0)"
            )
        }
        Console.out("")
    }
}
