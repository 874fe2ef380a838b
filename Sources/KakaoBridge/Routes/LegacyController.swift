import BridgeFeatures
import BridgeSupport
import Hummingbird
import Upstreams

/// `GET /v1/kakao/{access_token}`: the route apps already in the field call (they append the token to a base URL and decode
/// `{"data": [{"token", "kakao_token"}]}`). Steps 2–3 only. The path carries a token, so nothing here logs the raw path:
/// metrics and access logs use the route template.
struct LegacyController {
    let login: Live<LoginFlow>

    static let route = Route.legacy

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: mint)
    }

    struct Reply {
        struct Item {
            var token: String
            var kakao_token: String
        }
        var data: [Item]
    }

    @Sendable func mint(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let login = try login.get()
        guard let token = context.parameters.get("access_token") else { throw Problem.missingToken() }
        try BearerToken.validate(token)
        let minted: LoginFlow.Minted<KakaoUser>
        do throws(Problem) {
            minted = try await login.mint(kakaoToken: token, context: context.callContext)
            LoginMeters.count(.kakao, .ok)
        } catch {
            LoginMeters.count(.kakao, error)
            throw error
        }
        return JSONResponse.ok(json: Reply(data: [.init(token: minted.customToken, kakao_token: token)]))
    }
}
