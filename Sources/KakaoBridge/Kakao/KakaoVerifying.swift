/// Verifies a Kakao access token: it is live, it was issued to our Kakao app, and it names the user whose profile comes back.
public protocol KakaoVerifying: Sendable {
    func verify(accessToken: String, context: CallContext) async throws(Problem) -> KakaoUser
    /// The same verification, also telling how long Kakao still honours the token, so that a cache never trusts a token
    /// past Kakao's own expiry.
    func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken
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

extension KakaoVerifying {
    public func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken {
        VerifiedKakaoToken(user: try await verify(accessToken: accessToken, context: context), expiresIn: nil)
    }
}
