import Hummingbird

/// `GET /v1/token-exchange` (docs/api.md#get-v1token-exchange): a Kakao token in, a custom token (and, when configured, a Firebase session and the
/// backend's answer) out.
struct TokenExchangeController {
    let holder: StateHolder

    /// Query parameters that would put a token into access logs.
    static let tokenQueryNames: Set<String> = ["access_token", "token", "kakao_token"]

    func register(on router: Router<BridgeRequestContext>) {
        router.get("/v1/token-exchange", use: exchange)
        router.refuseOtherMethods("/v1/token-exchange", allow: ["GET"])
    }

    @Sendable func exchange(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        if request.uri.queryParameters.contains(where: { Self.tokenQueryNames.contains(String($0.key)) }) {
            throw Problem.invalidRequest("Tokens are not accepted in the query string (URLs end up in logs); use `Authorization: Bearer`.")
        }
        let state = try holder.require()
        let token = try BearerToken.from(request)
        let result = try await LoginFlow(state: state).exchange(kakaoToken: token, context: context.callContext)
        return JSONResponse.ok(json: result)
    }
}
