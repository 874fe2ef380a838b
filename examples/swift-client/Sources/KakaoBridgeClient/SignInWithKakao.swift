/// The whole login of docs/clients.md: a nonce (with OpenID Connect), Kakao Login, the exchange, then Firebase with
/// the custom token. Returns the Firebase uid (`kakao:<Kakao id>`, or the account a Kakao user is linked to).
public func signInWithKakao(
    kakao: any KakaoLoggingIn, bridge: BridgeClient, firebase: any FirebaseSigningIn, openIDConnect: Bool
) async throws -> String {
    let nonce = openIDConnect ? try await bridge.nonce() : nil
    let tokens = try await kakao.login(nonce: nonce)
    // The ID token when Kakao gave one: the bridge then verifies it without calling Kakao.
    let exchange = try await bridge.exchange(kakaoToken: tokens.idToken ?? tokens.accessToken)
    return try await firebase.signIn(withCustomToken: exchange.customToken)
}
