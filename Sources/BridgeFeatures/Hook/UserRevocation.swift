import BridgeSupport
import Upstreams

/// `POST /v1/users/revoke` (docs/api.md#post-v1usersrevoke): "log out everywhere" for backends without an Admin SDK. Sets
/// the user's `validSince` to now, so every refresh token issued before stops working and `hook.check_revoked` refuses
/// the older ID tokens. Present with the hook, whose secret authenticates it.
package struct UserRevocation: HookSecured {
    /// `hook.secret`, as the hook's: any one of them.
    package let secrets: [[UInt8]]
    /// `rate_limit.hook_per_minute`, shared with the hook.
    package let perMinute: Int
    let admin: FirebaseAdmin
    let clock: UnixClock

    /// The new `validSince`.
    package func revoke(uid: String, context: CallContext) async throws(Problem) -> Int64 {
        guard try await admin.lookUp(.uid(uid), context: context) != nil else {
            throw Problem.notFound("No Firebase user has this uid.")
        }
        var update = FirebaseUserUpdate(uid: uid)
        let now = clock.now()
        update.validSince = now
        guard try await admin.update(update, context: context) == .done else {
            throw Problem.firebaseAdminRejected("The Admin API refused accounts:update (validSince).")
        }
        return now
    }
}
