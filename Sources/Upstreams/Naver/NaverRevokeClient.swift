import BridgeSupport
import CurlHTTP

/// Naver's token revoke (docs/api.md#deleting-an-account): `POST {naver.auth_base_url}/oauth2.0/revoke`, form
/// `client_id`, `client_secret`, `token` (the person's access token), `token_type_hint=access_token`. It revokes the
/// paired refresh token as well and removes our app from the person's connected services. Naver answers 200 for a
/// token it no longer knows, so a second revoke is done too.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct NaverRevokeClient: ProviderUnlinking {
    private let upstream: Upstream
    /// `naver.auth_base_url`.
    private let baseURL: String
    private let clientID: String
    private let clientSecret: String

    package init(upstream: Upstream, baseURL: String, clientID: String, clientSecret: String) {
        self.upstream = upstream
        self.baseURL = baseURL.withoutTrailingSlash
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    // MARK: Entry point

    package func unlink(_ subject: UnlinkSubject, context: CallContext) async throws(Problem) {
        guard case .accessToken(let token) = subject else { throw Problem.invalidRequest("Naver revokes by access token.") }
        _ = try await upstream.call(request(token), Self.failures, context: context)
    }

    // MARK: Requests

    package static let revokePath = "/oauth2.0/revoke"

    private func request(_ token: String) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: baseURL + Self.revokePath,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(FormCodec.encode([
                ("client_id", clientID), ("client_secret", clientSecret), ("token", token), ("token_type_hint", "access_token"),
            ]).utf8)
        )
    }

    // MARK: Failure table (docs/errors.md#from-naver)

    /// 401 is our client id or secret refused; 503 Naver's `temporarily_unavailable`. Not retried within the request:
    /// the person's token is not kept, so the step is reported failed at once.
    package static let failures = FailureMap("Naver", unavailable: Problem.naverUnavailable) { response in
        switch response.status {
        case 400: .init(.naverRejected("Naver refused the revoke (HTTP 400)."))
        case 401: .init(.naverRejected("Naver refused the client id or secret (HTTP 401)."))
        default: .init(.naverUnavailable("Naver answered HTTP \(response.status) to the revoke."))
        }
    }
}
