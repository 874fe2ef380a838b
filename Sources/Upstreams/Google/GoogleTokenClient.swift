import BridgeJSON
import BridgeSupport
import CurlHTTP

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
