/// Verifies a Kakao access token: it is live, it was issued to our Kakao app, and it names the user whose profile comes back.
public protocol KakaoVerifying: Sendable {
    func verify(accessToken: String, context: CallContext) async throws(Problem) -> KakaoUser
}
