import BridgeJSON
import BridgeSupport
import CurlHTTP

/// Verifies a Kakao access token: it is live, it was issued to our Kakao app, and it names the user whose profile comes
/// back (docs/api.md#verifying-a-kakao-access-token). The real one asks Kakao; tests pass in-memory fakes.
public protocol KakaoVerifying: Sendable {
    /// The user, and how long Kakao still honours the token, so that a cache never trusts a token past Kakao's expiry.
    func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken
}

extension KakaoVerifying {
    public func verify(accessToken: String, context: CallContext) async throws(Problem) -> KakaoUser {
        try await verifyReportingLifetime(accessToken: accessToken, context: context).user
    }
}

/// A verified token's user and the seconds Kakao said it stays valid (`nil` when Kakao did not say).
public struct VerifiedKakaoToken: Sendable, Equatable {
    public var user: KakaoUser
    public var expiresIn: Int64?

    public init(user: KakaoUser, expiresIn: Int64?) {
        self.user = user
        self.expiresIn = expiresIn
    }
}

/// Kakao's REST API (https://kapi.kakao.com): token info and the user's profile (docs/api.md#verifying-a-kakao-access-token).
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct KakaoClient: KakaoVerifying {
    private let upstream: Upstream
    private let baseURL: String
    private let appID: Int64

    package init(upstream: Upstream, baseURL: String, appID: Int64) {
        self.upstream = upstream
        self.baseURL = baseURL.withoutTrailingSlash
        self.appID = appID
    }

    // MARK: Entry point

    /// Both calls start at once, so their latencies overlap; token info decides first: a dead token is
    /// `invalid_kakao_token` whatever the profile call said.
    package func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken {
        let attempts = await upstream.startAll(
            [request(Self.tokenInfoPath, accessToken), request(Self.userMePath, accessToken)], Self.failures, context: context
        )
        let info = try Self.tokenInfo(try await upstream.finish(attempts[0], context: context), appID: appID)
        return try Self.verified(info, profile: try await upstream.finish(attempts[1], context: context))
    }

    // MARK: Requests

    package static let tokenInfoPath = "/v1/user/access_token_info"
    /// `secure_resource=true`: profile image URLs come as https:// (iOS refuses to load plain-HTTP images).
    package static let userMePath = "/v2/user/me?secure_resource=true"

    private func request(_ path: String, _ token: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: baseURL + path, headers: [("Authorization", "Bearer " + token), ("Accept", "application/json")])
    }

    // MARK: Answers

    private static func tokenInfo(_ response: HTTPResponse, appID: Int64) throws(Problem) -> KakaoTokenInfo {
        let info = try Upstream.decode(KakaoTokenInfo.self, response, failures)
        if info.app_id != appID { throw Problem.kakaoAppMismatch() }
        if let expiresIn = info.expires_in, expiresIn <= 0 { throw Problem.invalidKakaoToken("The Kakao token has expired.") }
        return info
    }

    private static func verified(_ info: KakaoTokenInfo, profile response: HTTPResponse) throws(Problem) -> VerifiedKakaoToken {
        let me = try Upstream.decode(KakaoMe.self, response, failures)
        // Kakao ids are positive; anything else is a broken answer, not a verdict on the token.
        guard info.id > 0, me.id > 0 else { throw Problem.kakaoUnavailable("Kakao's answer carried an impossible user id.") }
        guard me.id == info.id else { throw Problem.invalidKakaoToken("Kakao's token info and profile name different users.") }
        return VerifiedKakaoToken(user: me.user, expiresIn: info.expires_in)
    }

    // MARK: Failure table (docs/errors.md#from-kakao)

    /// Kakao's GETs are idempotent: outages and connection errors are retried (at most twice, inside the deadline);
    /// a verdict on the token never is.
    package static let failures = FailureMap("Kakao", unavailable: Problem.kakaoUnavailable, retry: .kakao) { response in
        switch (try? KakaoErrorReply(jsonBytes: response.body))?.code {
        case .some(let code) where code == -401 || code == -2:
            .init(.invalidKakaoToken("Kakao does not accept the token (code \(code))."))
        case .some(-10):
            .init(.kakaoQuotaExceeded())
        case .some(let code) where code == -1 || code == -7:
            .init(.kakaoUnavailable("Kakao reports an outage (code \(code))."), retryable: true)
        case .some(-9798):
            .init(.kakaoUnavailable("Kakao is under maintenance (code -9798)."))
        case .some(let other):
            .init(.kakaoUnavailable("Kakao answered with error code \(other)."))
        case .none:
            .init(.kakaoUnavailable("Kakao answered HTTP \(response.status) without an error code."), retryable: response.status >= 500)
        }
    }
}
