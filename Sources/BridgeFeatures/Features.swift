import BridgeSupport
import Upstreams

/// The features, each a small service built from one configuration and the upstreams. Replaced as a whole on reload
/// (SIGHUP), so a request sees one consistent set from start to end; a feature that is switched off is `nil`.
///
/// A class, not a struct: a request takes it once and its async frames hold what it took by reference while they wait on
/// Kakao (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
public final class Features: Sendable {
    /// The configuration the features were built from (`project_id` filled in from the key file); the edge reads its own
    /// settings (rate limits, trusted proxies) from it.
    public let config: BridgeConfig
    /// `GET /v1/token-exchange`: always on.
    package let login: LoginFlow
    /// `GET /v1/kakao/{access_token}`: the same flow, present while `legacy.enabled`.
    package let legacyLogin: LoginFlow?
    /// `POST /v1/login-complete`: present exactly when `hook.secret` is set.
    package let hook: LoginHook?
    /// `POST /v1/users/revoke`: present with the hook.
    package let revocation: UserRevocation?
    /// Kakao's unlink webhook: present exactly when `kakao.admin_key` is set.
    package let unlink: KakaoUnlink?
    /// `POST /v1/kakao/events`, Kakao's security events: present exactly when `kakao.events.audiences` is not empty.
    package let securityEvents: SecurityEvents?
    /// The steps of queued unlink and security events: present when either of the two is on.
    package let accountActions: AccountActions?
    /// `GET /v1/kakao/nonce`: present exactly when `kakao.oidc.audiences` is not empty.
    package let nonces: KakaoNonces?
    /// The verified-token cache and the user cache, when on: another instance's unlink mark empties them of that user.
    let kakaoCache: KakaoVerificationCache?
    let userCache: UserRecordCache?
    /// `POST /v1/naver/unlink`, Naver's unlink callback: present exactly when `naver.client_secret` is set.
    package let naverUnlink: NaverUnlink?
    /// `POST /v1/users/delete` (with `hook.secret`) and `POST /v1/me/delete` (with `delete.self_service`).
    package let deletion: AccountDeletion?
    /// LINE's verified-token cache, when LINE and the cache are on.
    let lineCache: ProviderVerificationCache<LineUser>?
    /// Naver's verified-token cache, when Naver and the cache are on.
    let naverCache: ProviderVerificationCache<NaverUser>?

    init(
        config: BridgeConfig, login: LoginFlow, legacyLogin: LoginFlow?, hook: LoginHook?, revocation: UserRevocation?,
        unlink: KakaoUnlink?, securityEvents: SecurityEvents?, accountActions: AccountActions?, nonces: KakaoNonces?,
        kakaoCache: KakaoVerificationCache?, userCache: UserRecordCache?, naverCache: ProviderVerificationCache<NaverUser>? = nil,
        naverUnlink: NaverUnlink? = nil, lineCache: ProviderVerificationCache<LineUser>? = nil, deletion: AccountDeletion? = nil
    ) {
        self.deletion = deletion
        self.lineCache = lineCache
        self.naverUnlink = naverUnlink
        self.naverCache = naverCache
        self.config = config
        self.login = login
        self.legacyLogin = legacyLogin
        self.hook = hook
        self.revocation = revocation
        self.unlink = unlink
        self.securityEvents = securityEvents
        self.accountActions = accountActions
        self.nonces = nonces
        self.kakaoCache = kakaoCache
        self.userCache = userCache
    }

    /// A mark another instance recorded (`UnlinkMarkFollower`: an unlink, or a security event): this user's cached
    /// verifications and user record are dropped here too.
    /// The key is a mark's (`ProviderProfile.markKey`): a Kakao id, or a negative digest of another provider's id, whose
    /// cached verifications are dropped the same way.
    public func forgetKakaoUser(_ kakaoID: Int64) {
        guard kakaoID > 0 else {
            _ = naverCache?.dropUser(markKey: kakaoID)
            _ = lineCache?.dropUser(markKey: kakaoID)
            // The user record of whoever the key names, found by their uid: `naver:<id>` or `line:<id>`.
            let (naverPrefix, linePrefix) = (config.naver.uidPrefix, config.line.uidPrefix)
            userCache?.forget { uid in
                if uid.hasPrefix(naverPrefix) { return NaverUser.markKey(ofTextID: String(uid.dropFirst(naverPrefix.count))) == kakaoID }
                if uid.hasPrefix(linePrefix) { return LineUser.markKey(ofTextID: String(uid.dropFirst(linePrefix.count))) == kakaoID }
                return false
            }
            return
        }
        _ = kakaoCache?.dropUser(kakaoID)
        userCache?.forget(uid: config.kakao.uidPrefix + String(kakaoID))
    }
}
