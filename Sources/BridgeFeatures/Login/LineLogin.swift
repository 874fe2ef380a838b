import BridgeSupport
import Upstreams

/// LINE behind the provider interface: an access token through LINE's verify and profile (docs/api.md#line-access-tokens)
/// or a LINE ID token verified locally (docs/api.md#line-id-tokens), both behind the verification cache when
/// `kakao.cache_seconds` > 0, each kind under a key of its own. Present exactly when `line.channel_id` is set.
package struct LineLogin: LoginProvider {
    let line: any LineVerifying
    let idTokens: LineIDTokenVerifier
    let cache: ProviderVerificationCache<LineUser>?
    package let uidPrefix: String

    package func verifiedUser(_ bearer: String, use: CredentialUse, context: CallContext) async throws(Problem) -> LineUser {
        // By the payload's issuer, not by the dots: LINE's v2.1 access tokens are JWT-shaped too.
        let isIDToken = LineIDTokenVerifier.isIDToken(bearer)
        let verify: @Sendable () async throws(Problem) -> VerifiedProviderToken<LineUser>
        if isIDToken {
            let idTokens = self.idTokens
            verify = { () async throws(Problem) -> VerifiedProviderToken<LineUser> in try await idTokens.verify(bearer, context: context) }
        } else {
            let line = self.line
            verify = { () async throws(Problem) -> VerifiedProviderToken<LineUser> in try await line.verify(accessToken: bearer, context: context) }
        }
        guard let cache else { return try await verify().user }
        return try await cache.verify(token: bearer, kind: isIDToken ? .idToken : .accessToken, verifiedBy: verify)
    }
}
