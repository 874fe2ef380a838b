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
