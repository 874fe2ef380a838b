import BridgeJSON
import BridgeSupport
import CurlHTTP
import OpenSSLCrypto

/// An OAuth 2.0 access token for the Admin API, as Google's token endpoint hands it out. Never logged, never in a label.
public struct GoogleAccessToken: Sendable, Equatable {
    public var token: String
    /// Seconds from the answer on; Google gives 3599 or 3600.
    public var expiresIn: Int64

    public init(token: String, expiresIn: Int64) {
        self.token = token
        self.expiresIn = expiresIn
    }
}

/// Obtains an access token for a service account (docs/api.md#credentials): the real one sends the RFC 7523 JWT-bearer
/// grant to the account's `token_uri`; tests pass in-memory fakes. `AccessTokenCache` sits in front of it.
public protocol GoogleAccessTokenFetching: Sendable {
    func fetchAccessToken(for account: ServiceAccount, context: CallContext) async throws(Problem) -> GoogleAccessToken
}

/// Google's OAuth 2.0 token endpoint: `POST {token_uri}` with the JWT-bearer grant (docs/api.md#credentials).
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct GoogleTokenClient: GoogleAccessTokenFetching {
    private let upstream: Upstream
    private let clock: UnixClock

    package init(upstream: Upstream, clock: UnixClock = .system) {
        self.upstream = upstream
        self.clock = clock
    }

    // MARK: Entry point

    /// Retried on connection failures only: a grant has no effect besides the token, and 4xx answers are final.
    package func fetchAccessToken(for account: ServiceAccount, context: CallContext) async throws(Problem) -> GoogleAccessToken {
        let assertion: String
        do {
            assertion = try JWTBearerAssertion.make(for: account, now: clock.now())
        } catch {
            throw Problem.notReady("The access-token assertion could not be signed.")
        }
        let reply: TokenReply = try await upstream.postForm(
            account.tokenURI, fields: Self.form(assertion: assertion), Self.failures, context: context
        )
        return GoogleAccessToken(token: reply.accessToken, expiresIn: reply.expiresIn)
    }

    // MARK: Requests

    package static func form(assertion: String) -> [(String, String)] {
        [("grant_type", JWTBearerAssertion.grantType), ("assertion", assertion)]
    }

    // MARK: Answers

    /// `{"access_token", "expires_in", "token_type": "Bearer"}`; anything else is not a token the Admin API takes.
    package struct TokenReply: JSONDecodable {
        package var accessToken: String
        package var expiresIn: Int64

        package init(json: JSONValue) throws(JSONMismatch) {
            accessToken = try json.required("access_token", \.stringValue)
            expiresIn = try json.required("expires_in", \.int64Value)
            let type = try json.optional("token_type", \.stringValue) ?? "Bearer"
            guard !accessToken.isEmpty, expiresIn > 0, type.lowercased() == "bearer" else { throw JSONMismatch() }
        }
    }

    // MARK: Failure table (docs/errors.md#from-google-s-token-endpoint-and-the-admin-api)

    /// OAuth 2.0 errors are `{"error": "invalid_grant", "error_description": "…"}` (RFC 6749 §5.2). The code is what
    /// the problem body carries; the description (`Invalid JWT Signature.`, the service account's name) is for the
    /// operator's log only (docs/errors.md#from-google-s-token-endpoint-and-the-admin-api).
    package static let failures = FailureMap(
        "Google's token endpoint", unavailable: Problem.firebaseAdminUnavailable, retry: .google
    ) { response in
        guard (400..<500).contains(response.status) else {
            return .init(.firebaseAdminUnavailable("Google's token endpoint answered HTTP \(response.status)."), retryable: true)
        }
        let body = JSONValue.parse(response.body)
        let code = body?["error"]?.stringValue.map(GoogleErrorCode.sanitized) ?? "no error code"
        var problem = Problem.firebaseAdminRejected(
            "Google's token endpoint refused the service account's assertion (HTTP \(response.status)): \(code)."
        )
        problem.upstreamMessage = body?["error_description"]?.stringValue.map(GoogleErrorCode.loggable)
        return .init(problem)
    }
}

/// The assertion of the RFC 7523 JWT-bearer grant, as Google's auth libraries build it for a service account: header
/// `{"alg":"RS256","typ":"JWT","kid":<private_key_id>}`, payload `iss` = the account's email, `scope`, `aud` = the
/// token endpoint, `iat` = now, `exp` = now + 3600 (Google refuses a longer one). Signed by `OpenSSLCrypto`.
package enum JWTBearerAssertion {
    package static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The scopes the Firebase Admin SDKs ask for user management.
    package static let scope = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/identitytoolkit"
    package static let lifetimeSeconds: Int64 = 3600

    package static func make(for account: ServiceAccount, now: Int64) throws(CustomTokenError) -> String {
        do {
            return try JWTEncoding.signedRS256(
                encodedHeader: JWTEncoding.encodedRS256Header(kid: account.privateKeyID), payload: payload(for: account, now: now),
                key: account.privateKey
            )
        } catch {
            throw CustomTokenError("signing the access-token assertion failed: \(error)")
        }
    }

    package static func payload(for account: ServiceAccount, now: Int64) -> [UInt8] {
        var json = JSONWriter(capacity: 320)
        json.openObject()
        json.key("iss")
        json.string(account.clientEmail)
        json.key("scope")
        json.string(scope)
        JWTEncoding.writeAudienceAndLifetime(&json, audience: account.tokenURI, now: now, lifetime: lifetimeSeconds)
        json.closeObject()
        return json.bytes
    }
}
