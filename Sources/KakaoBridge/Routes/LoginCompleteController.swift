import BridgeJSON
import BridgeSupport
import Hummingbird
import NIOCore
import OpenSSLCrypto
import Upstreams

/// `POST /v1/login-complete` (docs/api.md#post-v1login-complete): the backend's hook. It sends the body the app gave it and learns who the user
/// really is: the Firebase ID token and the Kakao token are both verified and must name the same user.
struct LoginCompleteController {
    let holder: StateHolder
    let hookLimit: HookRateLimit

    static let route = Route.loginComplete

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: complete)
    }

    struct Reply {
        var uid: String
        var kakao: KakaoUser
        var claims: JSONValue
    }

    @Sendable func complete(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let state = try holder.require()
        guard let idTokens = state.idTokens else { throw Problem.notFound() }
        // The secret is checked before the body is read: strangers get nothing but a 401.
        try Self.authorize(request, secret: state.hookSecret)
        try hookLimit.take(perMinute: state.config.rateLimit.hookPerMinute)
        let (kakaoToken, idToken) = try await Self.readBody(request)

        let verified = try await idTokens.verify(idToken, context: context.callContext)
        // `hook.check_revoked`: as `verifyIdToken(token, true)`, after the token itself verified.
        try await state.revocation?.check(verified, context: context.callContext)
        try BearerToken.validate(kakaoToken)
        // A Kakao ID token is accepted here too, under every rule but its nonce's single use (the exchange used it).
        let user = try await LoginFlow(state: state).verifiedUser(kakaoToken, idTokens: .hook, context: context.callContext)
        guard Self.sameUser(verified, user, uidPrefix: state.config.kakao.uidPrefix) else { throw Problem.tokenMismatch() }
        return JSONResponse.ok(json: Reply(uid: verified.subject, kakao: user, claims: verified.claims))
    }

    /// The ID token is the Kakao user's when its `sub` is `kakao:<id>`, or when it carries `kakao_id` equal to the Kakao
    /// id: a login linked to an existing account (docs/api.md#linking-to-an-existing-firebase-account) signs in as that
    /// account, and both the custom token's claims and the account's custom claims put `kakao_id` into its ID tokens.
    static func sameUser(_ token: VerifiedIDToken, _ user: KakaoUser, uidPrefix: String) -> Bool {
        if token.subject == uidPrefix + String(user.id) { return true }
        return CustomAttributes.kakaoID(token.claims["kakao_id"]) == user.id
    }

    /// `Authorization: Bearer <hook secret>`; anything else, including no header, is `unauthorized` (never `missing_token`:
    /// the caller is the backend, and the secret is not a user's token).
    static func authorize(_ request: Request, secret: [UInt8]) throws(Problem) {
        guard AuthorizationHeader.carries(request, scheme: .bearer, secret: secret) else { throw Problem.unauthorized() }
    }

    /// `{"kakao_token": "…", "token": "…"}`, at most 64 KiB; other members are ignored.
    static func readBody(_ request: Request) async throws(Problem) -> (kakaoToken: String, idToken: String) {
        let json = try await RequestBody.jsonObject(request, what: "a JSON object with `kakao_token` and `token`")
        guard let kakaoToken = json["kakao_token"]?.stringValue, !kakaoToken.isEmpty else {
            throw Problem.invalidRequest("`kakao_token` must be a non-empty string.")
        }
        guard let idToken = json["token"]?.stringValue, !idToken.isEmpty else {
            throw Problem.invalidRequest("`token` must be a non-empty string (the Firebase ID token).")
        }
        return (kakaoToken, idToken)
    }
}
