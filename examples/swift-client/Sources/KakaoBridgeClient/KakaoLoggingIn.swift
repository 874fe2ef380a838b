/// What the app needs of the Kakao SDK: a login that returns Kakao's tokens. In the app, `KakaoSDKUser`'s
/// `UserApi.shared.loginWithKakaoTalk(nonce:)` (or `loginWithKakaoAccount(nonce:)`) does it (docs/clients.md).
public protocol KakaoLoggingIn: Sendable {
    /// `nonce` is the bridge's (`GET /v1/kakao/nonce`) when OpenID Connect is on, `nil` otherwise.
    func login(nonce: String?) async throws -> KakaoTokens
}

/// Kakao's answer to a login: always an access token; an ID token too when OpenID Connect is on for the Kakao app.
public struct KakaoTokens: Sendable, Equatable {
    public var accessToken: String
    public var idToken: String?

    public init(accessToken: String, idToken: String? = nil) {
        self.accessToken = accessToken
        self.idToken = idToken
    }
}
