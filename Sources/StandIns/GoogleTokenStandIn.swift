import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// Google's OAuth 2.0 token endpoint (`oauth2.googleapis.com/token`) for the RFC 7523 JWT-bearer grant, checking the
/// assertion as Google does: form body, grant type, RS256 signature by the service account's key, `kid`, `iss`, `aud` =
/// this endpoint's URL, a scope, and a lifetime of at most one hour. Written independently of the bridge's code.
public final class GoogleTokenStandIn: Sendable {
    public static let path = "/token"
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    static let maximumLifetime: Int64 = 3600
    /// Either lets a service account manage Firebase users.
    static let adminScopes: Set<String> = [
        "https://www.googleapis.com/auth/cloud-platform", "https://www.googleapis.com/auth/identitytoolkit",
    ]
    /// Google tolerates a little clock drift on `iat`.
    static let allowedSkew: Int64 = 300

    public let clientEmail: String
    private let publicKey: RSAPublicKey
    private let keyID: String
    private let now: @Sendable () -> Int64
    /// Seconds a token lives, as Google says in `expires_in`.
    public let tokenLifetime: Int64

    private struct State {
        var url = ""
        var fault = FaultSlot<StandInFault>()
        var fetches = 0
        var lastAssertionPayload: JSONValue?
        var lastAssertionHeader: JSONValue?
        var lastRejection: String?
    }

    private let state = Mutex(State())
    private let issued: IssuedTokens

    public init(
        account: SandboxServiceAccount, tokenLifetime: Int64 = 3599,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.clientEmail = account.clientEmail
        self.publicKey = account.publicKey
        self.keyID = account.privateKeyID
        self.tokenLifetime = tokenLifetime
        self.now = now
        self.issued = IssuedTokens(now: now)
    }

    /// The service account's `token_uri`, and what the assertion's `aud` must be.
    public var url: String { state.withLock { $0.url } }
    /// Grants asked for (accepted or not).
    public var fetches: Int { state.withLock { $0.fetches } }
    public var lastAssertionPayload: JSONValue? { state.withLock { $0.lastAssertionPayload } }
    public var lastAssertionHeader: JSONValue? { state.withLock { $0.lastAssertionHeader } }
    public var lastRejection: String? { state.withLock { $0.lastRejection } }

    public func setFault(_ fault: StandInFault?, times: Int? = nil) {
        state.withLock { $0.fault.set(fault, times: times) }
    }

    /// Whether `token` is an access token this endpoint issued and that has not expired.
    public func isValid(_ token: String) -> Bool {
        issued.isValid(token)
    }

    /// Forgets every issued token: what an expired or revoked credential looks like to the Admin API.
    public func revokeAll() { issued.revokeAll() }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.post(RouterPath(Self.path)) { request, _ in try await self.answer(request) }
        let server = try await StandInServer.start(name: "oauth2", router: router, logger: logger)
        state.withLock { $0.url = server.baseURL + Self.path }
        return server
    }

    private func answer(_ request: Request) async throws -> Response {
        let fault = state.withLock { state in
            state.fetches += 1
            return state.fault.take()
        }
        if let replacement = try await fault?.apply() { return replacement }
        guard request.mediaType == "application/x-www-form-urlencoded" else {
            return refuse("invalid_request", "Content-Type must be application/x-www-form-urlencoded.")
        }
        let form = FormFields.parse(String(decoding: try await request.bodyBytes(), as: UTF8.self))
        guard form["grant_type"] == Self.grantType else { return refuse("unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")") }
        guard let assertion = form["assertion"], !assertion.isEmpty else { return refuse("invalid_request", "Missing required parameter: assertion") }
        switch check(assertion) {
        case .failure(let why):
            return refuse("invalid_grant", why.text)
        case .success:
            let token = issued.issue(prefix: "ya29.standin-", lifetime: tokenLifetime)
            return Reply.json(200, [
                "access_token": .string(token), "expires_in": .int(tokenLifetime), "token_type": .string("Bearer"),
            ])
        }
    }

    private struct Why: Error { var text: String }

    private func check(_ assertion: String) -> Result<Void, Why> {
        let segments = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let headerBytes = Base64URL.decode(String(segments[0])),
              let payloadBytes = Base64URL.decode(String(segments[1])), let signature = Base64URL.decode(String(segments[2])),
              let header = JSONValue.parse(headerBytes), let payload = JSONValue.parse(payloadBytes),
              case .object = header, case .object = payload
        else { return .failure(Why(text: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")) }
        state.withLock {
            $0.lastAssertionHeader = header
            $0.lastAssertionPayload = payload
        }
        guard header["alg"] == .string("RS256") else { return .failure(Why(text: "Invalid JWT: alg must be RS256")) }
        let signingInput = Array(segments[0].utf8) + [UInt8(ascii: ".")] + Array(segments[1].utf8)
        guard publicKey.verifyRS256(signature: signature, message: signingInput) else {
            return .failure(Why(text: "Invalid JWT Signature."))
        }
        if let kid = header["kid"], kid != .string(keyID) { return .failure(Why(text: "Invalid JWT Signature.")) }
        guard payload["iss"] == .string(clientEmail) else { return .failure(Why(text: "Invalid grant: account not found")) }
        guard payload["aud"] == .string(url) else {
            return .failure(Why(text: "Invalid JWT: Failed audience check. The right audience is \(url)"))
        }
        let scopes = payload["scope"]?.stringValue?.split(separator: " ").map(String.init) ?? []
        guard scopes.contains(where: Self.adminScopes.contains) else {
            return .failure(Why(text: "Invalid OAuth scope or ID token audience provided."))
        }
        let now = self.now()
        guard let iat = payload["iat"]?.intValue, let exp = payload["exp"]?.intValue, exp > iat, exp - iat <= Self.maximumLifetime,
              iat <= now + Self.allowedSkew, exp > now
        else { return .failure(Why(text: "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.")) }
        return .success(())
    }

    private func refuse(_ code: String, _ description: String) -> Response {
        state.withLock { $0.lastRejection = "\(code): \(description)" }
        return Reply.json(400, ["error": .string(code), "error_description": .string(description)], contentType: "application/json; charset=utf-8")
    }
}
