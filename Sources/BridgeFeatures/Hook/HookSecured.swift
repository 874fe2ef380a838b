/// A feature the backend calls with the hook secret: the hook, revoke and deletion (docs/api.md#post-v1login-complete).
/// What its route checks before it reads a body, in one order for all three (`HookRateLimit.admit`).
package protocol HookSecured: Sendable {
    /// `hook.secret`: any one of them during a rotation (docs/configuration.md#rotating-the-hook-secret).
    var secrets: [[UInt8]] { get }
    /// `rate_limit.hook_per_minute`: one budget shared by every hook-secret route of the instance.
    var perMinute: Int { get }
}
