import BridgeFeatures
import BridgeSupport
import FoundationEssentials
import Hummingbird
import Upstreams

/// `GET /v1/token-exchange` (docs/api.md#get-v1token-exchange): a Kakao token in, a custom token (and, when configured, a Firebase session and the
/// backend's answer) out.
struct TokenExchangeController {
    let login: Live<LoginFlow>

    static let route = Route.tokenExchange

    /// Query parameters that would put a token into access logs, compared percent-decoded and case-folded:
    /// `?Access_Token=` and `?access%5Ftoken=` are the same parameter to many frameworks, so they are refused too.
    static let tokenQueryNames: Set<String> = ["access_token", "token", "kakao_token"]

    static func queryCarriesToken(_ query: String?) -> Bool {
        guard let query, !query.isEmpty else { return false }
        return query.split(separator: "&").contains { pair in
            let rawName = pair.prefix { $0 != "=" }
            let name = (FormCodec.decode(rawName) ?? String(rawName)).lowercased()
            return tokenQueryNames.contains(name.trimmingSpaces())
        }
    }

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: exchange)
    }

    @Sendable func exchange(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        if Self.queryCarriesToken(request.uri.query) {
            throw Problem.invalidRequest("Tokens are not accepted in the query string (URLs end up in logs); use `Authorization: Bearer`.")
        }
        let login = try login.get()
        let token = try BearerToken.from(request)
        let result = try await login.exchange(kakaoToken: token, context: context.callContext)
        return JSONResponse.ok(json: result)
    }
}
