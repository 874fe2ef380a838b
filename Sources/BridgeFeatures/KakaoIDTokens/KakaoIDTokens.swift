import BridgeJSON
import BridgeSupport
import Logging
import StateStore
import Upstreams

/// Kakao ID tokens as `GET /v1/token-exchange` and the hook take them (docs/api.md#kakao-id-tokens): the verification
/// (signature and claims, cached like an access token's), then on every use, cached or not, the rules that can change
/// after it: the user unlinked the app since the token was issued, and the nonce (HMAC, expiry and, on the exchange,
/// single use). Present exactly when `kakao.oidc.audiences` is not empty.
package struct KakaoIDTokens: Sendable {
    /// The exchange uses up the token's nonce; the hook, which sees the same token right after, must not.
    package enum Use: Sendable {
        case exchange
        case hook
    }

    let verifier: KakaoIDTokenVerifier
    let nonces: KakaoNonces
    let usedNonces: UsedKakaoNonces
    let requireNonce: Bool
    /// The verification cache of access tokens, when `kakao.cache_seconds` > 0.
    let cache: KakaoVerificationCache?
    let unlinkedUsers: UnlinkedKakaoUsers
    let clock: UnixClock

    static func assemble(
        _ config: BridgeConfig, keys: PublicKeyCache, cache: KakaoVerificationCache?, unlinkedUsers: UnlinkedKakaoUsers,
        shared: SharedState, clock: UnixClock, logger: Logger
    ) -> KakaoIDTokens? {
        let oidc = config.kakao.oidc
        guard oidc.enabled else { return nil }
        let rules = KakaoIDTokenClaimRules(audiences: oidc.audiences, clockSkewSeconds: config.firebase.clockSkewSeconds, clock: clock)
        let secret = oidc.nonceSecret.isEmpty ? shared.generatedNonceSecret : Array(oidc.nonceSecret.utf8)
        return KakaoIDTokens(
            verifier: KakaoIDTokenVerifier(rules: rules, keys: keys),
            nonces: KakaoNonces(secret: secret, clock: clock), usedNonces: UsedKakaoNonces(store: shared.store, health: shared.health), requireNonce: oidc.requireNonce,
            cache: cache, unlinkedUsers: unlinkedUsers, clock: clock
        )
    }

    func verify(_ token: String, use: Use, context: CallContext) async throws(Problem) -> KakaoUser {
        let verifier = self.verifier
        let clock = self.clock
        // Read once (the verification's first step): a miss verifies this parse, and the rules checked on every use read
        // its payload.
        let parsed = try KakaoIDTokenVerifier.parse(token)
        let verified: VerifiedKakaoToken
        if let cache {
            // In this task: the verification's one outside call, the JWKS, is fetched in a task of `PublicKeyCache`'s own,
            // so nothing in it observes cancellation.
            verified = try await cache.verifyReportingLifetime(
                token: token, kind: .idToken, shielding: .callersTask
            ) { () async throws(Problem) -> VerifiedKakaoToken in
                let claims = try await verifier.verify(parsed: parsed, context: context)
                // Trusted no longer than the token itself.
                return VerifiedKakaoToken(user: claims.user, expiresIn: claims.expiresAt - clock.now())
            }
        } else {
            verified = VerifiedKakaoToken(user: try await verifier.verify(parsed: parsed, context: context).user, expiresIn: nil)
        }
        // The payload was verified (now or when it was cached); its rules again, for those that change with time.
        guard let claims = try? verifier.rules.check(parsed.payload) else {
            throw KakaoIDTokenClaimRules.invalid("The ID token is no longer valid.")
        }
        if let unlinkedAt = unlinkedUsers.unlinkedAt(verified.user.id), claims.issuedAt <= unlinkedAt {
            throw KakaoIDTokenClaimRules.invalid(
                "The Kakao user unlinked this app, or Kakao ended their sessions, after the ID token was issued; the user must log in with Kakao again."
            )
        }
        if requireNonce { try await checkNonce(claims.nonce, use: use) }
        return verified.user
    }

    private func checkNonce(_ nonce: String?, use: Use) async throws(Problem) {
        guard let nonce, !nonce.isEmpty else {
            throw KakaoIDTokenClaimRules.invalid(
                "The ID token has no nonce; get one from GET /v1/kakao/nonce and pass it to the Kakao SDK's login."
            )
        }
        let ticket = try nonces.check(nonce)
        guard use == .exchange else { return }
        switch try await usedNonces.use(ticket) {
        case .first: return
        case .replayed: throw KakaoIDTokenClaimRules.invalid("The ID token's nonce was already used; each login needs a fresh nonce.")
        }
    }
}
