import BridgeSupport
import Upstreams

/// Naver behind the provider interface (docs/api.md#naver-access-tokens): access tokens only, through `/v1/nid/me`,
/// behind the verification cache when `kakao.cache_seconds` > 0 (the same rules as Kakao's). Present exactly when
/// `naver.client_id` is set.
package struct NaverLogin: LoginProvider {
    let naver: any NaverVerifying
    let cache: ProviderVerificationCache<NaverUser>?
    package let uidPrefix: String

    package func verifiedUser(_ bearer: String, use: CredentialUse, context: CallContext) async throws(Problem) -> NaverUser {
        let naver = self.naver
        guard let cache else { return try await naver.verify(accessToken: bearer, context: context) }
        // Naver's profile says nothing of the token's lifetime: the cache's own bound alone.
        return try await cache.verify(token: bearer) { () async throws(Problem) -> VerifiedProviderToken<NaverUser> in
            VerifiedProviderToken(user: try await naver.verify(accessToken: bearer, context: context), expiresIn: nil)
        }
    }
}
