import BridgeSupport
import Logging
import Synchronization
import Upstreams

/// Everything a request needs that comes from configuration. Replaced as a whole on reload (SIGHUP), so a request sees
/// one consistent state from start to end.
///
/// A class, not a struct: a request takes it from `StateHolder` once and its async frames hold it while they wait on
/// Kakao. As a struct, the whole configuration was copied into those frames (the token exchange's frame was 3.5 KiB),
/// and every login in flight kept the copies.
public final class BridgeState: Sendable {
    public let config: BridgeConfig
    let kakao: any KakaoVerifying
    let minter: CustomTokenMinter
    /// Present exactly when steps 4–5 are on (`firebase.web_api_key` set).
    let identityToolkit: (any IdentityToolkitExchanging)?
    /// Present exactly when step 6 is on (`backend.login_complete_url` set).
    let backend: (any BackendCompleting)?
    /// Present exactly when the hook is on (`hook.secret` set).
    let idTokens: IDTokenVerifier?
    let hookSecret: [UInt8]
    /// The Admin API with its credential, project and tenant; used by the user sync and the revocation check.
    let firebaseAdmin: FirebaseAdmin
    /// Present unless `firebase.user_sync: off`.
    let userSync: UserSync?
    /// Present exactly when the hook is on and `hook.check_revoked` is set.
    let revocation: RevocationCheck?
    /// Kakao users unlinked in the last day (docs/api.md#kakaos-unlink-webhook); one memory for the process, kept across reloads.
    let unlinkedUsers: UnlinkedKakaoUsers
    /// The verified-token cache, when on: the unlink webhook drops a user's entries from it.
    let kakaoCache: KakaoVerificationCache?
    /// Present exactly when `backend.unlink_url` is set.
    let unlinkNotifier: (any UnlinkNotifying)?
    /// Present exactly when `kakao.oidc.audiences` is not empty (docs/api.md#kakao-id-tokens).
    let kakaoIDTokens: KakaoIDTokens?

    init(
        config: BridgeConfig, kakao: any KakaoVerifying, minter: CustomTokenMinter,
        identityToolkit: (any IdentityToolkitExchanging)?, backend: (any BackendCompleting)?, idTokens: IDTokenVerifier?,
        hookSecret: [UInt8], firebaseAdmin: FirebaseAdmin, userSync: UserSync?, revocation: RevocationCheck?,
        unlinkedUsers: UnlinkedKakaoUsers, kakaoCache: KakaoVerificationCache?, unlinkNotifier: (any UnlinkNotifying)?,
        kakaoIDTokens: KakaoIDTokens?
    ) {
        self.config = config
        self.kakao = kakao
        self.minter = minter
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.idTokens = idTokens
        self.hookSecret = hookSecret
        self.firebaseAdmin = firebaseAdmin
        self.userSync = userSync
        self.revocation = revocation
        self.unlinkedUsers = unlinkedUsers
        self.kakaoCache = kakaoCache
        self.unlinkNotifier = unlinkNotifier
        self.kakaoIDTokens = kakaoIDTokens
    }

    /// Loads the service account and puts the caches in front of the upstreams: what `buildApplication` and a reload do.
    static func assemble(
        _ config: BridgeConfig, upstreams: BridgeUpstreams, clock: UnixClock, logger: Logger,
        unlinkedUsers: UnlinkedKakaoUsers? = nil, nonceMemory: KakaoNonceMemory? = nil, linkLocks: LinkLocks? = nil
    ) throws(StartupFailure) -> BridgeState {
        let account = try loadServiceAccount(config)
        // The key file names the token endpoint: the same https rule as every configured upstream URL.
        guard config.upstream.allowInsecure || config.firebase.usesEmulator || ConfigValidation.isSecureOrLoopback(account.tokenURI) else {
            throw StartupFailure(
                "firebase.service_account_file: token_uri must be https:// (plain http:// only to a loopback host, or with upstream.allow_insecure: true)"
            )
        }
        var config = config
        if config.firebase.projectID.isEmpty { config.firebase.projectID = account.projectID }
        let unlinkedUsers = unlinkedUsers ?? UnlinkedKakaoUsers(clock: clock)
        let kakaoCache = config.kakao.cacheSeconds > 0
            ? KakaoVerificationCache(
                wrapping: upstreams.kakao, ttlSeconds: config.kakao.cacheSeconds, clock: clock, unlinkedUsers: unlinkedUsers
            )
            : nil
        let kakao: any KakaoVerifying = kakaoCache ?? upstreams.kakao
        let minter = CustomTokenMinter(
            account: account, ttlSeconds: config.firebase.customTokenTTLSeconds, tenantID: config.firebase.tenantID, clock: clock
        )
        let idTokens = config.hook.secret.isEmpty ? nil : IDTokenVerifier(
            rules: IDTokenClaimRules(
                projectID: config.firebase.projectID, tenantID: config.firebase.tenantID,
                clockSkewSeconds: config.firebase.clockSkewSeconds, clock: clock
            ),
            certificates: .googleCertificates(upstreams.certificates, clock: clock, logger: logger),
            acceptsEmulatorTokens: config.firebase.usesEmulator
        )
        let credentials = config.firebase.usesEmulator
            ? AccessTokenCache.emulator(clock: clock)
            : AccessTokenCache(fetching: upstreams.googleTokens, account: account, clock: clock)
        let admin = FirebaseAdmin(
            api: upstreams.firebaseAdmin, credentials: credentials, projectID: config.firebase.projectID,
            tenantID: config.firebase.tenantID
        )
        let mode = config.firebase.userSync
        let userSync = mode == .off ? nil : UserSync(
            admin: admin, mode: mode, cache: UserRecordCache(ttlSeconds: config.firebase.userCacheSeconds, clock: clock),
            logger: logger, linksByEmail: config.linking.byVerifiedEmail, uidPrefix: config.kakao.uidPrefix,
            linkLocks: linkLocks ?? LinkLocks()
        )
        let kakaoIDTokens = KakaoIDTokens.assemble(
            config, keys: upstreams.kakaoKeys, cache: kakaoCache, unlinkedUsers: unlinkedUsers,
            nonceMemory: nonceMemory ?? KakaoNonceMemory(clock: clock), clock: clock, logger: logger
        )
        return BridgeState(
            config: config, kakao: kakao, minter: minter,
            identityToolkit: config.firebase.webAPIKey.isEmpty ? nil : upstreams.identityToolkit,
            backend: config.backend.loginCompleteURL.isEmpty ? nil : upstreams.backend,
            idTokens: idTokens, hookSecret: Array(config.hook.secret.utf8),
            firebaseAdmin: admin, userSync: userSync,
            revocation: idTokens != nil && config.hook.checkRevoked ? RevocationCheck(admin: admin) : nil,
            unlinkedUsers: unlinkedUsers, kakaoCache: kakaoCache,
            unlinkNotifier: config.backend.unlinkURL.isEmpty ? nil : upstreams.unlinkNotifier,
            kakaoIDTokens: kakaoIDTokens
        )
    }

    /// `check-config` loads the key too, not only the YAML.
    public static func loadServiceAccount(_ config: BridgeConfig) throws(StartupFailure) -> ServiceAccount {
        do {
            return try ServiceAccount.load(path: config.firebase.serviceAccountFile)
        } catch {
            throw StartupFailure("firebase.service_account_file: \(error)")
        }
    }
}

/// Holds the current `BridgeState`; `nil` until configuration and key are loaded (then `/readyz` and every route say `not_ready`).
public final class StateHolder: Sendable {
    private let state: Mutex<BridgeState?>
    private let draining = Atomic<Bool>(false)

    public init(_ state: BridgeState?) { self.state = Mutex(state) }

    public var current: BridgeState? { state.withLock { $0 } }

    public func replace(_ newState: BridgeState) { state.withLock { $0 = newState } }

    /// Set on SIGTERM so that `/readyz` turns 503 at once while in-flight requests finish.
    public var isDraining: Bool {
        get { draining.load(ordering: .relaxed) }
        set { draining.store(newValue, ordering: .relaxed) }
    }

    func require() throws(Problem) -> BridgeState {
        guard let state = current else { throw Problem.notReady("Configuration or key not loaded.") }
        return state
    }
}
