import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// LINE Login's API (`https://api.line.me`), strict: `GET /oauth2/v2.1/verify?access_token=` (`{"scope", "client_id",
/// "expires_in"}`, 400 `invalid_request` "access token expired"), `GET /v2/profile` with `Authorization: Bearer`
/// (`{"userId", "displayName", "pictureUrl"}`, 401 otherwise) and the ID tokens' JWKS at `/oauth2/v2.1/certs` (P-256,
/// ES256). Issues access tokens (JWT-shaped, as LINE's v2.1 ones are) and ID tokens signed both ways LINE signs them:
/// ES256 with a `kid` (native apps, the SDK, LIFF) and HS256 with the channel secret (web login).
public final class LineStandIn: Sendable {
    public static let verifyPath = "/oauth2/v2.1/verify"
    public static let profilePath = "/v2/profile"
    public static let certsPath = "/oauth2/v2.1/certs"
    public static let channelTokenPath = "/oauth2/v3/token"
    public static let deauthorizePath = "/user/v1/deauthorize"
    public static let issuer = "https://access.line.me"

    public struct Account: Sendable, Equatable {
        /// `U` and 32 lowercase hex digits.
        public var userID: String
        public var displayName: String?
        public var pictureURL: String?
        public var email: String?

        public init(userID: String, displayName: String? = nil, pictureURL: String? = nil, email: String? = nil) {
            self.userID = userID
            self.displayName = displayName
            self.pictureURL = pictureURL
            self.email = email
        }
    }

    public enum Fault: Sendable, Equatable {
        case httpStatus(Int)
        case rawBody(String)
        case delay(Duration)
    }

    /// How an ID token is signed.
    public enum Signing: Sendable, Equatable {
        case es256
        /// With the channel secret, as LINE's web login signs.
        case hs256
        /// With another key than LINE's (a forgery).
        case es256Foreign
        case none
    }

    private struct Issued {
        var account: Account
        var channelID: String
        var expiresAt: ContinuousClock.Instant
    }

    private struct State {
        var tokens: [String: Issued] = [:]
        var verifyFault = FaultSlot<Fault>()
        var profileFault = FaultSlot<Fault>()
        var verifyCalls = 0
        var profileCalls = 0
        var certsCalls = 0
        /// Stateless channel access tokens handed out by `/oauth2/v3/token`.
        var channelTokens: Set<String> = []
        var deauthorizeFault = FaultSlot<Fault>()
        var deauthorizeCalls = 0
        /// The people the deauthorize unlinked, in order.
        var deauthorizedIDs: [String] = []
    }

    public let channelID: String
    public let channelSecret: String
    private let key = P256PrivateKey()
    private let foreignKey = P256PrivateKey()
    public let kid: String
    private let state = Mutex(State())

    public init(channelID: String = "1657000000", channelSecret: String = "sandbox-line-channel-secret-0123") {
        self.channelID = channelID
        self.channelSecret = channelSecret
        self.kid = hex(SecureRandom.bytes(count: 16))
    }

    /// A LINE access token for `account`, issued to `channelID` (ours when nil). JWT-shaped like LINE's v2.1 tokens, with
    /// an `iss` that is not LINE's ID-token issuer.
    public func issueToken(for account: Account, channelID: String? = nil, expiresIn: Int = 2_591_659) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8))
        let payload = Base64URL.encode(JSONValue.object([
            "iss": "https://access.line.me/oauth2/v2.1", "ver": "2.1", "jti": .string(hex(SecureRandom.bytes(count: 8))),
        ]).serialized)
        let token = header + "." + payload + "." + Base64URL.encode(SecureRandom.bytes(count: 32))
        state.withLock { $0.tokens[token] = Issued(account: account, channelID: channelID ?? self.channelID, expiresAt: .now + .seconds(expiresIn)) }
        return token
    }

    public func expire(_ token: String) { state.withLock { $0.tokens[token]?.expiresAt = .now - .seconds(1) } }

    public func setFault(_ fault: Fault?, verify: Bool = true, profile: Bool = true, times: Int? = nil) {
        state.withLock {
            if verify { $0.verifyFault.set(fault, times: times) }
            if profile { $0.profileFault.set(fault, times: times) }
        }
    }

    /// The JWKS's one key, as LINE publishes it.
    public var publishedKey: (kid: String, x: String, y: String) {
        let (x, y) = key.publicKey.jwkComponents
        return (kid, x, y)
    }

    public var verifyCalls: Int { state.withLock { $0.verifyCalls } }
    public var profileCalls: Int { state.withLock { $0.profileCalls } }
    public var certsCalls: Int { state.withLock { $0.certsCalls } }

    /// The ID token LINE Login hands the app with `openid`: `iss`, `sub`, `aud` (the channel), `exp`, `iat`, `amr`,
    /// `name`, `picture`, `email`.
    public func issueIDToken(
        for account: Account, signing: Signing = .es256, audience: String? = nil, issuer: String = LineStandIn.issuer,
        issuedAt: Int64? = nil, lifetime: Int64 = 3600, extraHeader: [String: JSONValue] = [:]
    ) -> String {
        let now = issuedAt ?? Int64(Date().timeIntervalSince1970)
        var payload: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(account.userID), "aud": .string(audience ?? channelID), "exp": .int(now + lifetime),
            "iat": .int(now), "amr": ["linesso"],
        ]
        if let name = account.displayName { payload["name"] = .string(name) }
        if let picture = account.pictureURL { payload["picture"] = .string(picture) }
        if let email = account.email { payload["email"] = .string(email) }
        var header: [String: JSONValue] = ["typ": "JWT"]
        switch signing {
        case .es256, .es256Foreign: header["alg"] = "ES256"; header["kid"] = .string(kid)
        case .hs256: header["alg"] = "HS256"
        case .none: header["alg"] = "none"
        }
        for (name, value) in extraHeader { header[name] = value }
        let input = Base64URL.encode(JSONValue.object(header).serialized) + "." + Base64URL.encode(JSONValue.object(payload).serialized)
        let message = Array(input.utf8)
        let signature: [UInt8] = switch signing {
        case .es256: (try? key.signES256(message)) ?? []
        case .es256Foreign: (try? foreignKey.signES256(message)) ?? []
        case .hs256: HMACSHA256.authenticate(key: Array(channelSecret.utf8), message: message)
        case .none: []
        }
        return input + "." + Base64URL.encode(signature)
    }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.get(RouterPath(Self.verifyPath)) { request, _ in await self.verify(request) }
        router.get(RouterPath(Self.profilePath)) { request, _ in await self.profile(request) }
        router.get(RouterPath(Self.certsPath)) { _, _ in self.certs() }
        router.post(RouterPath(Self.channelTokenPath)) { request, _ in await self.channelToken(request) }
        router.post(RouterPath(Self.deauthorizePath)) { request, _ in await self.deauthorize(request) }
        return try await StandInServer.start(name: "line", router: router, logger: logger)
    }

    private func verify(_ request: Request) async -> Response {
        let fault = state.withLock { state in
            state.verifyCalls += 1
            return state.verifyFault.take()
        }
        if let replaced = await Self.apply(fault) { return replaced }
        // The token in the query, as LINE's API takes it; nothing else.
        guard let query = request.uri.query, let token = FormFields.parse(query)["access_token"], !token.isEmpty else {
            return Self.error(400, "invalid_request", "access_token is required")
        }
        guard let issued = state.withLock({ $0.tokens[token] }) else { return Self.error(400, "invalid_request", "invalid access token") }
        let remaining = ContinuousClock.now.duration(to: issued.expiresAt).components.seconds
        guard remaining > 0 else { return Self.error(400, "invalid_request", "access token expired") }
        return Reply.json(200, ["scope": "profile openid", "client_id": .string(issued.channelID), "expires_in": .int(remaining)])
    }

    private func profile(_ request: Request) async -> Response {
        let fault = state.withLock { state in
            state.profileCalls += 1
            return state.profileFault.take()
        }
        if let replaced = await Self.apply(fault) { return replaced }
        guard let token = request.bearerToken, let issued = state.withLock({ $0.tokens[token] }),
              ContinuousClock.now < issued.expiresAt
        else { return Reply.json(401, ["message": "Authentication failed"]) }
        var body: [String: JSONValue] = ["userId": .string(issued.account.userID), "statusMessage": "never read"]
        if let name = issued.account.displayName { body["displayName"] = .string(name) }
        if let picture = issued.account.pictureURL { body["pictureUrl"] = .string(picture) }
        return Reply.json(200, .object(body))
    }

    /// The deauthorize's next answers (`times` nil: until cleared with nil).
    public func setDeauthorizeFault(_ fault: Fault?, times: Int? = nil) { state.withLock { $0.deauthorizeFault.set(fault, times: times) } }
    public var deauthorizeCalls: Int { state.withLock { $0.deauthorizeCalls } }
    /// The user ids the deauthorize unlinked.
    public var deauthorizedIDs: [String] { state.withLock { $0.deauthorizedIDs } }

    /// A stateless channel access token: form `grant_type=client_credentials`, `client_id`, `client_secret`.
    private func channelToken(_ request: Request) async -> Response {
        guard request.mediaType == "application/x-www-form-urlencoded", let body = try? await request.bodyBytes() else {
            return Self.error(400, "invalid_request", "form body required")
        }
        let fields = FormFields.parse(String(decoding: body, as: UTF8.self))
        guard fields["grant_type"] == "client_credentials" else { return Self.error(400, "unsupported_grant_type", "grant_type") }
        guard fields["client_id"] == channelID, fields["client_secret"] == channelSecret else {
            return Self.error(400, "invalid_client", "invalid client")
        }
        let token = "eyJ" + Base64URL.encode(SecureRandom.bytes(count: 48))
        state.withLock { _ = $0.channelTokens.insert(token) }
        return Reply.json(200, ["token_type": "Bearer", "access_token": .string(token), "expires_in": 900])
    }

    /// `Authorization: Bearer <channel access token>`, JSON `{"userAccessToken"}`: 204, or 400 `{"message": "invalid
    /// token"}` for a token that is no longer live (already unlinked or deauthorized).
    private func deauthorize(_ request: Request) async -> Response {
        let fault = state.withLock { state in
            state.deauthorizeCalls += 1
            return state.deauthorizeFault.take()
        }
        if let replaced = await Self.apply(fault) { return replaced }
        guard let token = request.bearerToken, state.withLock({ $0.channelTokens.contains(token) })
        else { return Reply.json(401, ["message": "Authentication failed"]) }
        guard request.mediaType == "application/json", let body = try? await request.bodyBytes(),
              let json = JSONValue.parse(body[...]), let token = json["userAccessToken"]?.stringValue
        else { return Reply.json(400, ["message": "The request body has 1 error(s)"]) }
        let unlinked = state.withLock { state -> Bool in
            guard let issued = state.tokens[token], ContinuousClock.now < issued.expiresAt else { return false }
            state.tokens = state.tokens.filter { $0.value.account.userID != issued.account.userID }
            state.deauthorizedIDs.append(issued.account.userID)
            return true
        }
        guard unlinked else { return Reply.json(400, ["message": "invalid token"]) }
        return Reply.text(204, "", contentType: "application/json")
    }

    private func certs() -> Response {
        state.withLock { $0.certsCalls += 1 }
        let (x, y) = key.publicKey.jwkComponents
        let jwk: JSONValue = ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": .string(kid), "x": .string(x), "y": .string(y)]
        var response = Reply.json(200, ["keys": [jwk]])
        response.headers[.cacheControl] = "max-age=3600"
        return response
    }

    private static func apply(_ fault: Fault?) async -> Response? {
        switch fault {
        case .httpStatus(let status): return error(status, status == 429 ? "too_many_requests" : "server_error", "fault")
        case .rawBody(let body): return Reply.text(200, body, contentType: "application/json")
        case .delay(let duration):
            try? await Task.sleep(for: duration)
            return nil
        case nil: return nil
        }
    }

    private static func error(_ status: Int, _ code: String, _ description: String) -> Response {
        Reply.json(status, ["error": .string(code), "error_description": .string(description)])
    }
}
