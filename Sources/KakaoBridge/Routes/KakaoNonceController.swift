import BridgeJSON
import Hummingbird
import Upstreams

/// `GET /v1/kakao/nonce` (docs/api.md#get-v1kakaononce): a nonce for the Kakao SDK's login, which Kakao copies into the ID
/// token. Issuing stores nothing (`KakaoNonces`). Switched off, like all of OpenID Connect, while `kakao.oidc.audiences`
/// is empty: then 404 `not_found`, and still never the legacy route's token.
struct KakaoNonceController {
    let holder: StateHolder

    static let route = Route.kakaoNonce

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: issue)
    }

    struct Reply: JSONWritable {
        var nonce: String
        var expiresIn: Int64

        func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("nonce")
            writer.string(nonce)
            writer.key("expires_in")
            writer.int(expiresIn)
            writer.closeObject()
        }
    }

    @Sendable func issue(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let state = try holder.require()
        guard let idTokens = state.kakaoIDTokens else { throw Problem.notFound() }
        let issued = idTokens.nonces.issue()
        return JSONResponse.ok(json: Reply(nonce: issued.nonce, expiresIn: issued.expiresIn))
    }
}
