import BridgeJSON
import Upstreams

/// `hook.check_revoked`: what the Admin SDKs' `verifyIdToken(token, checkRevoked: true)` adds after the token itself
/// verified (docs/api.md#revocation-on-the-hook). The user is looked up every time (never cached: a revocation must
/// take effect at once); missing → `invalid_id_token`, disabled → `user_disabled`, a session that began before
/// `validSince` → `id_token_revoked`.
struct RevocationCheck: Sendable {
    let admin: FirebaseAdmin

    func check(_ token: VerifiedIDToken, context: CallContext) async throws(Problem) {
        guard let record = try await admin.lookUp(.uid(token.subject), context: context) else {
            throw Problem.invalidIDToken("The ID token's user does not exist (no such user).")
        }
        if record.disabled { throw Problem.userDisabled() }
        guard let validSince = record.validSince else { return }
        // The Node SDK compares `auth_time`, the start of the session; a token without it falls back to `iat` (Python).
        let sessionStart = token.claims["auth_time"]?.int64Value ?? token.claims["iat"]?.int64Value ?? 0
        if sessionStart < validSince { throw Problem.idTokenRevoked() }
    }
}
