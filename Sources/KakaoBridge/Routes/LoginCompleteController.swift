import BridgeFeatures
import BridgeJSON
import BridgeSupport
import Hummingbird
import NIOCore
import OpenSSLCrypto
import Upstreams

/// `POST /v1/login-complete` (docs/api.md#post-v1login-complete): the backend's hook. It sends the body the app gave it and learns who the user
/// really is: the Firebase ID token and the Kakao token are both verified and must name the same user.
struct LoginCompleteController {
    let hook: Live<LoginHook>
    let hookLimit: HookRateLimit

    static let route = Route.loginComplete

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: complete)
    }

    @Sendable func complete(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let hook = try hook.get()
        // The secret is checked before the body is read: strangers get nothing but a 401.
        try hookLimit.admit(request, to: hook)
        let body = try await Self.readBody(request)

        let verified = try await hook.verify(idToken: body.idToken, context: context.callContext)
        try BearerToken.validate(body.providerToken)
        return JSONResponse.ok(json: try await hook.match(
            verified, provider: body.provider, providerToken: body.providerToken, context: context.callContext
        ))
    }

    /// `{"kakao_token": "…", "token": "…"}`, or `{"provider": "naver", "provider_token": "…", "token": "…"}`
    /// (docs/api.md#post-v1login-complete), at most 64 KiB; other members are ignored. With `provider` the token is
    /// `provider_token`, whichever provider it names.
    static func readBody(_ request: Request) async throws(Problem) -> (provider: Provider, providerToken: String, idToken: String) {
        let json = try await RequestBody.jsonObject(request, what: "a JSON object with `kakao_token` (or `provider` and `provider_token`) and `token`")
        let provider: Provider
        let providerToken: String
        if let named = json["provider"] {
            guard let text = named.stringValue, let known = Provider(rawValue: text) else {
                throw Problem.invalidRequest("`provider` must be one of kakao, naver, line.")
            }
            guard let token = json["provider_token"]?.stringValue, !token.isEmpty else {
                throw Problem.invalidRequest("`provider_token` must be a non-empty string.")
            }
            (provider, providerToken) = (known, token)
        } else {
            guard let kakaoToken = json["kakao_token"]?.stringValue, !kakaoToken.isEmpty else {
                throw Problem.invalidRequest("`kakao_token` must be a non-empty string.")
            }
            (provider, providerToken) = (.kakao, kakaoToken)
        }
        guard let idToken = json["token"]?.stringValue, !idToken.isEmpty else {
            throw Problem.invalidRequest("`token` must be a non-empty string (the Firebase ID token).")
        }
        return (provider, providerToken, idToken)
    }
}
