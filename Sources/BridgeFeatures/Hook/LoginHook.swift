import BridgeJSON
import BridgeSupport
import Upstreams

/// `POST /v1/login-complete` (docs/api.md#post-v1login-complete), the backend's hook: the Firebase ID token and the Kakao
/// token are both verified and must name the same user. Present exactly when `hook.secret` is set.
package final class LoginHook: HookSecured {
    /// Who the two tokens say the user is.
    package struct Verified: Sendable {
        package var uid: String
        /// The provider's user: the answer's `kakao`, `naver` or `line` object.
        package var profile: any ProviderProfile
        package var claims: JSONValue

        package init(uid: String, profile: any ProviderProfile, claims: JSONValue) {
            self.uid = uid
            self.profile = profile
            self.claims = claims
        }

        package init(uid: String, kakao: KakaoUser, claims: JSONValue) {
            self.init(uid: uid, profile: kakao, claims: claims)
        }
    }

    /// `hook.secret`: what the backend may send as `Authorization: Bearer`, any one of them during a rotation
    /// (docs/configuration.md#rotating-the-hook-secret); `POST /v1/users/revoke` takes them too.
    package let secrets: [[UInt8]]
    /// `rate_limit.hook_per_minute`.
    package let perMinute: Int
    /// Google's certificates are fetched at start (`KeyPrefetchService`) and checked by `/readyz` through it.
    package let idTokens: IDTokenVerifier
    /// Present exactly when `hook.check_revoked` is set.
    let revocation: RevocationCheck?
    /// The Kakao token is verified as a login verifies it.
    let login: LoginFlow

    init(secrets: [[UInt8]], perMinute: Int, idTokens: IDTokenVerifier, revocation: RevocationCheck?, login: LoginFlow) {
        self.secrets = secrets
        self.perMinute = perMinute
        self.idTokens = idTokens
        self.revocation = revocation
        self.login = login
    }

    /// The Firebase ID token, as `verifyIdToken(token, checkRevoked)` verifies it.
    package func verify(idToken: String, context: CallContext) async throws(Problem) -> VerifiedIDToken {
        let verified = try await idTokens.verify(idToken, context: context)
        // `hook.check_revoked`: as `verifyIdToken(token, true)`, after the token itself verified.
        try await revocation?.check(verified, context: context)
        return verified
    }

    /// The Kakao token, verified as a login verifies it, must name the ID token's user.
    package func match(_ verified: VerifiedIDToken, kakaoToken: String, context: CallContext) async throws(Problem) -> Verified {
        try await match(verified, provider: .kakao, providerToken: kakaoToken, context: context)
    }

    /// The provider's token (`{"provider", "provider_token", "token"}`, docs/api.md#post-v1login-complete), verified as a
    /// login verifies it, must name the ID token's user. A provider that is not on is the caller's mistake: 400.
    package func match(_ verified: VerifiedIDToken, provider: Provider, providerToken: String, context: CallContext) async throws(Problem) -> Verified {
        switch provider {
        case .kakao:
            return try await match(verified, with: login.kakao, token: providerToken, context: context)
        case .naver:
            guard let naver = login.naver else { throw Self.providerOff(provider) }
            return try await match(verified, with: naver, token: providerToken, context: context)
        case .line:
            guard let line = login.line else { throw Self.providerOff(provider) }
            return try await match(verified, with: line, token: providerToken, context: context)
        }
    }

    static func providerOff(_ provider: Provider) -> Problem {
        Problem.invalidRequest("`provider` names \(provider.rawValue), which this service does not have switched on.")
    }

    private func match<P: LoginProvider>(_ verified: VerifiedIDToken, with provider: P, token: String, context: CallContext) async throws(Problem) -> Verified {
        // A Kakao ID token is accepted here too, under every rule but its nonce's single use (the exchange used it).
        let user = try await provider.verifiedUser(token, use: .hook, context: context)
        let same: Bool
        if let kakao = user as? KakaoUser {
            same = Self.sameUser(verified, kakao, uidPrefix: provider.uidPrefix)
        } else {
            // Only Kakao's users link (docs/api.md#linking-to-an-existing-firebase-account): the others sign in as their own uid.
            same = verified.subject == provider.uidPrefix + user.uidSuffix
        }
        guard same else { throw Problem.tokenMismatch(P.User.provider) }
        return Verified(uid: verified.subject, profile: user, claims: verified.claims)
    }

    /// The ID token is the Kakao user's when its `sub` is `kakao:<id>`, or when it carries `kakao_id` equal to the Kakao
    /// id: a login linked to an existing account (docs/api.md#linking-to-an-existing-firebase-account) signs in as that
    /// account, and both the custom token's claims and the account's custom claims put `kakao_id` into its ID tokens.
    package static func sameUser(_ token: VerifiedIDToken, _ user: KakaoUser, uidPrefix: String) -> Bool {
        if token.subject == uidPrefix + String(user.id) { return true }
        return CustomAttributes.kakaoID(token.claims["kakao_id"]) == user.id
    }
}
