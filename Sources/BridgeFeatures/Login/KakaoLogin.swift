import BridgeSupport
import Upstreams

/// Kakao behind the provider interface (docs/api.md#verifying-a-kakao-access-token): an access token through token info
/// and the profile (behind `KakaoVerificationCache`), or a Kakao ID token verified locally (docs/api.md#kakao-id-tokens).
package struct KakaoLogin: LoginProvider {
    /// Kakao's token info and profile, behind the verification cache when `kakao.cache_seconds` > 0.
    let kakao: any KakaoVerifying
    /// Present exactly when `kakao.oidc.audiences` is not empty.
    let kakaoIDTokens: KakaoIDTokens?
    package let uidPrefix: String

    /// A Kakao ID token is verified locally, with no call to Kakao; only where `use` says how one is used (the token
    /// exchange, the hook), and refused elsewhere. Anything else is an access token, verified by Kakao.
    package func verifiedUser(_ bearer: String, use: CredentialUse, context: CallContext) async throws(Problem) -> KakaoUser {
        if KakaoCredentialKind(bearer: bearer) == .idToken {
            // The legacy route takes access tokens only: an ID token there is refused before Kakao or the cache is asked,
            // since only the exchange and the hook check its nonce and the unlink mark (docs/api.md#kakao-id-tokens).
            let idTokenUse: KakaoIDTokens.Use
            switch use {
            case .legacy:
                throw Problem.invalidKakaoToken("This route takes Kakao access tokens only; send a Kakao ID token to GET /v1/token-exchange.")
            case .exchange: idTokenUse = .exchange
            case .hook: idTokenUse = .hook
            }
            guard let idTokens = kakaoIDTokens else {
                throw Problem.invalidKakaoIDToken(
                    "This service does not accept Kakao ID tokens (kakao.oidc.audiences is empty); send the Kakao access token."
                )
            }
            return try await idTokens.verify(bearer, use: idTokenUse, context: context)
        }
        return try await kakao.verify(accessToken: bearer, context: context)
    }
}
