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
        // Before the token and before any upstream: a provider that is unknown or off is the app's mistake.
        let provider = try Self.provider(request.uri.query, login: login)
        let token = try BearerToken.from(request)
        do throws(Problem) {
            let response = try await Self.exchange(login, provider, token: token, context: context.callContext)
            LoginMeters.count(provider, .ok)
            return response
        } catch {
            LoginMeters.count(provider, error)
            throw error
        }
    }

    /// Each provider through the one flow (`LoginFlow.exchange(with:)`), specialised for it: no boxing on Kakao's path.
    private static func exchange(_ login: LoginFlow, _ provider: Provider, token: String, context: CallContext) async throws(Problem) -> Response {
        switch provider {
        case .kakao:
            return JSONResponse.ok(json: try await login.exchange(with: login.kakao, token: token, context: context))
        case .naver:
            guard let naver = login.naver else { throw Self.providerOff(provider) }
            return JSONResponse.ok(json: try await login.exchange(with: naver, token: token, context: context))
        case .line:
            guard let line = login.line else { throw Self.providerOff(provider) }
            return JSONResponse.ok(json: try await login.exchange(with: line, token: token, context: context))
        }
    }

    /// `?provider=naver|line|kakao` (docs/api.md#providers), Kakao when absent. Said twice, empty, unknown or switched
    /// off: 400 naming the parameter. The value is echoed only when it is a provider's name (it is the app's text).
    static func provider(_ query: String?, login: LoginFlow) throws(Problem) -> Provider {
        var found: Provider?
        var seen = false
        for pair in (query ?? "").split(separator: "&") {
            let rawName = pair.prefix { $0 != "=" }
            guard (FormCodec.decode(rawName) ?? String(rawName)) == "provider" else { continue }
            guard !seen else { throw Problem.invalidRequest("The query parameter `provider` is given more than once.") }
            seen = true
            let rawValue = pair.dropFirst(rawName.count + 1)
            guard let provider = Provider(queryValue: Substring(FormCodec.decode(rawValue) ?? String(rawValue))) else {
                throw Problem.invalidRequest("The query parameter `provider` must be one of kakao, naver, line.")
            }
            found = provider
        }
        let provider = found ?? .kakao
        guard login.isOn(provider) else { throw providerOff(provider) }
        return provider
    }

    static func providerOff(_ provider: Provider) -> Problem {
        Problem.invalidRequest("The query parameter `provider` names \(provider.rawValue), which this service does not have switched on.")
    }
}
