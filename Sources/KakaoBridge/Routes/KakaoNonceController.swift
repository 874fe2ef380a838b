import BridgeFeatures
import BridgeJSON
import Hummingbird
import Upstreams

/// `GET /v1/kakao/nonce` (docs/api.md#get-v1kakaononce): a nonce for the Kakao SDK's login, which Kakao copies into the ID
/// token. Issuing stores nothing (`KakaoNonces`). Switched off, like all of OpenID Connect, while `kakao.oidc.audiences`
/// is empty: then 404 `not_found`, and still never the legacy route's token.
struct KakaoNonceController {
    let nonces: Live<KakaoNonces>

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
        let issued = try nonces.get().issue()
        return JSONResponse.ok(json: Reply(nonce: issued.nonce, expiresIn: issued.expiresIn))
    }
}
