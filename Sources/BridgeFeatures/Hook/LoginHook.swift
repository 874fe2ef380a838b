import BridgeJSON
import Upstreams

/// `POST /v1/login-complete` (docs/api.md#post-v1login-complete), the backend's hook: the Firebase ID token and the Kakao
/// token are both verified and must name the same user. Present exactly when `hook.secret` is set.
package final class LoginHook: Sendable {
    /// Who the two tokens say the user is.
    package struct Verified: Sendable {
        package var uid: String
        package var kakao: KakaoUser
        package var claims: JSONValue
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
        // A Kakao ID token is accepted here too, under every rule but its nonce's single use (the exchange used it).
        let user = try await login.verifiedUser(kakaoToken, idTokens: .hook, context: context)
        guard Self.sameUser(verified, user, uidPrefix: login.uidPrefix) else { throw Problem.tokenMismatch() }
        return Verified(uid: verified.subject, kakao: user, claims: verified.claims)
    }

    /// The ID token is the Kakao user's when its `sub` is `kakao:<id>`, or when it carries `kakao_id` equal to the Kakao
    /// id: a login linked to an existing account (docs/api.md#linking-to-an-existing-firebase-account) signs in as that
    /// account, and both the custom token's claims and the account's custom claims put `kakao_id` into its ID tokens.
    package static func sameUser(_ token: VerifiedIDToken, _ user: KakaoUser, uidPrefix: String) -> Bool {
        if token.subject == uidPrefix + String(user.id) { return true }
        return CustomAttributes.kakaoID(token.claims["kakao_id"]) == user.id
    }
}
