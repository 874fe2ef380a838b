import BridgeSupport
import Logging
import OpenSSLCrypto
import Upstreams

extension Features {
    /// Loads the service account (or takes the keyless one, `firebase.signer: iam`), puts the caches in front of the
    /// upstreams and builds each feature that is switched on: what the service does at start and on every reload.
    public static func assemble(
        _ config: BridgeConfig, upstreams: BridgeUpstreams, shared: SharedState, unlinkMeters: UnlinkMeters = UnlinkMeters(),
        securityEventMeters: SecurityEventMeters = SecurityEventMeters(), deletionMeters: DeletionMeters = DeletionMeters(), keyless: KeylessAccount? = nil, clock: UnixClock,
        placement: @escaping @Sendable () -> (any TaskExecutor)? = { nil }, logger: Logger
    ) throws(StartupFailure) -> Features {
        var config = config
        let signing = try signing(config, upstreams: upstreams, keyless: keyless, clock: clock)
        if config.firebase.projectID.isEmpty { config.firebase.projectID = signing.projectID }
        let credentials = signing.credentials
        let kakaoCache = config.kakao.cacheSeconds > 0
            ? KakaoVerificationCache(
                wrapping: upstreams.kakao, ttlSeconds: config.kakao.cacheSeconds, clock: clock, unlinkedUsers: shared.unlinkedUsers,
                placement: placement
            )
            : nil
        let admin = FirebaseAdmin(
            api: upstreams.firebaseAdmin, credentials: credentials, projectID: config.firebase.projectID,
            tenantID: config.firebase.tenantID
        )
        let userSync = config.firebase.userSync == .off ? nil : UserSync(
            admin: admin, mode: config.firebase.userSync,
            cache: UserRecordCache(ttlSeconds: config.firebase.userCacheSeconds, clock: clock), logger: logger,
            linksByEmail: config.linking.byVerifiedEmail, uidPrefix: config.kakao.uidPrefix, linkLocks: shared.linkLocks
        )
        // One cache of Kakao's keys for its ID tokens and its security event tokens.
        let kakaoKeys = config.kakao.oidc.enabled || config.kakao.events.enabled
            ? PublicKeyCache.kakaoKeys(upstreams.kakaoKeys, clock: clock, logger: logger) : nil
        let kakaoIDTokens = kakaoKeys.flatMap { keys in KakaoIDTokens.assemble(
            config, keys: keys, cache: kakaoCache, unlinkedUsers: shared.unlinkedUsers,
            shared: shared, clock: clock, logger: logger
        ) }
        // Naver (docs/api.md#naver-access-tokens): its verification cache follows Kakao's rules and `kakao.cache_seconds`.
        let naverCache = config.naver.enabled && config.kakao.cacheSeconds > 0
            ? ProviderVerificationCache<NaverUser>(ttlSeconds: config.kakao.cacheSeconds, clock: clock, unlinkedUsers: shared.unlinkedUsers)
            : nil
        let naver = config.naver.enabled
            ? NaverLogin(naver: upstreams.naver, cache: naverCache, uidPrefix: config.naver.uidPrefix) : nil
        // LINE (docs/api.md#line-access-tokens, #line-id-tokens): its keys cached as Kakao's, its verifications as Kakao's.
        let lineCache = config.line.enabled && config.kakao.cacheSeconds > 0
            ? ProviderVerificationCache<LineUser>(ttlSeconds: config.kakao.cacheSeconds, clock: clock, unlinkedUsers: shared.unlinkedUsers)
            : nil
        let lineKeys = config.line.enabled ? KeyCache<P256PublicKey>.lineKeys(upstreams.lineKeys, clock: clock, logger: logger) : nil
        let line = lineKeys.map { keys in
            LineLogin(
                line: upstreams.line,
                idTokens: LineIDTokenVerifier(
                    rules: LineIDTokenClaimRules(channelID: config.line.channelID, clockSkewSeconds: config.firebase.clockSkewSeconds, clock: clock),
                    keys: keys, channelSecret: config.line.channelSecret
                ),
                cache: lineCache, uidPrefix: config.line.uidPrefix
            )
        }
        let login = LoginFlow(
            kakao: KakaoLogin(kakao: kakaoCache ?? upstreams.kakao, kakaoIDTokens: kakaoIDTokens, uidPrefix: config.kakao.uidPrefix),
            naver: naver, line: line, userSync: userSync,
            minter: CustomTokenMinter(
                signer: signing.signer, ttlSeconds: config.firebase.customTokenTTLSeconds, tenantID: config.firebase.tenantID,
                clock: clock
            ),
            identityToolkit: config.firebase.webAPIKey.isEmpty ? nil : upstreams.identityToolkit,
            backend: config.backend.loginCompleteURL.isEmpty ? nil : upstreams.backend
        )
        // Firebase ID tokens, verified as `verifyIdToken` does: the hook's, and account deletion's self-service route.
        let idTokens = config.hook.secret.isEmpty && !config.delete.selfService ? nil : IDTokenVerifier(
            rules: IDTokenClaimRules(
                projectID: config.firebase.projectID, tenantID: config.firebase.tenantID,
                clockSkewSeconds: config.firebase.clockSkewSeconds, clock: clock
            ),
            certificates: .googleCertificates(upstreams.certificates, clock: clock, logger: logger),
            acceptsEmulatorTokens: config.firebase.usesEmulator
        )
        let hook = config.hook.secret.isEmpty ? nil : idTokens.map { idTokens in LoginHook(
            secrets: config.hook.secrets.map { Array($0.utf8) }, perMinute: config.rateLimit.hookPerMinute,
            idTokens: idTokens,
            revocation: config.hook.checkRevoked ? RevocationCheck(admin: admin) : nil,
            login: login
        ) }
        let deletionOn = !config.hook.secret.isEmpty || config.delete.selfService
        let actions = config.kakao.adminKey.isEmpty && !config.kakao.events.enabled && !config.naver.unlinkCallbackEnabled && !deletionOn
            ? nil : AccountActions(
            unlinkAction: config.kakao.unlinkAction, uidPrefix: config.kakao.uidPrefix, admin: admin, shared: shared,
            retrySeconds: max(1, Int64((config.kakao.unlinkRetryHours * 3600).rounded())),
            // The store counts whole seconds: one more, so that a lease taken late in a second still lasts the
            // configured time, and a 1 s lease is not over the moment it is taken.
            leaseSeconds: Int64(config.kakao.unlinkLeaseSeconds) + 1, kakaoCache: kakaoCache, userCache: userSync?.cache,
            unlinkNotifier: config.backend.unlinkURL.isEmpty ? nil : upstreams.unlinkNotifier,
            eventsNotifier: config.backend.eventsURL.isEmpty ? nil : upstreams.eventsNotifier, meters: unlinkMeters, clock: clock,
            logger: logger, naverUIDPrefix: config.naver.uidPrefix, naverCache: naverCache,
            kakaoUnlinker: config.kakao.adminKey.isEmpty ? nil : upstreams.kakaoUnlink, deletionMeters: deletionMeters
        )
        // Account deletion (docs/api.md#deleting-an-account): the backend's route with the hook secret, the app's with
        // `delete.self_service`.
        let deletion = deletionOn ? actions.map { actions in
            AccountDeletion(
                secrets: config.hook.secrets.map { Array($0.utf8) }, perMinute: config.rateLimit.hookPerMinute,
                idTokens: config.delete.selfService ? idTokens : nil,
                revocation: config.hook.checkRevoked ? RevocationCheck(admin: admin) : nil,
                maxAuthAgeSeconds: config.delete.maxAuthAgeSeconds, deadline: .milliseconds(config.kakao.unlinkDeadlineMS),
                actions: actions, login: login, admin: admin,
                naverUnlinker: config.naver.unlinkCallbackEnabled ? upstreams.naverUnlink : nil,
                lineUnlinker: config.line.enabled && !config.line.channelSecret.isEmpty ? upstreams.lineUnlink : nil,
                prefixes: [(.kakao, config.kakao.uidPrefix), (.naver, config.naver.uidPrefix), (.line, config.line.uidPrefix)],
                shared: shared, clock: clock, logger: logger
            )
        } : nil
        // Naver's unlink callback (docs/api.md#navers-unlink-callback): off without the client secret, its key.
        let naverUnlink = config.naver.unlinkCallbackEnabled ? actions.map { actions in
            NaverUnlink(
                callback: NaverUnlinkCallback(clientID: config.naver.clientID, clientSecret: config.naver.clientSecret),
                actions: actions, deadline: .milliseconds(config.kakao.unlinkDeadlineMS), shared: shared, clock: clock, logger: logger
            )
        } : nil
        let deadline = Duration.milliseconds(config.kakao.unlinkDeadlineMS)
        let unlink = config.kakao.adminKey.isEmpty ? nil : actions.map { actions in
            KakaoUnlink(
                appID: config.kakao.appID, adminKey: Array(config.kakao.adminKey.utf8), deadline: deadline, actions: actions,
                shared: shared, clock: clock, logger: logger
            )
        }
        let securityEvents: SecurityEvents? = if let actions, let kakaoKeys, config.kakao.events.enabled {
            SecurityEvents(
                verifier: KakaoSecurityEventVerifier(
                    rules: SecurityEventClaimRules(
                        audiences: config.kakao.events.audiences, maxAgeSeconds: config.kakao.events.maxAgeSeconds,
                        clockSkewSeconds: config.firebase.clockSkewSeconds, clock: clock
                    ),
                    keys: kakaoKeys
                ),
                actions: actions, meters: securityEventMeters, deadline: deadline, shared: shared, clock: clock, logger: logger
            )
        } else {
            nil
        }
        return Features(
            config: config, login: login, legacyLogin: config.legacy.enabled ? login : nil, hook: hook,
            revocation: hook.map { UserRevocation(secrets: $0.secrets, perMinute: $0.perMinute, admin: admin, clock: clock) }, unlink: unlink,
            securityEvents: securityEvents, accountActions: actions, nonces: kakaoIDTokens?.nonces, kakaoCache: kakaoCache, userCache: userSync?.cache,
            naverCache: naverCache, naverUnlink: naverUnlink, lineCache: lineCache, deletion: deletion
        )
    }

    /// Who signs, for which project, and the Admin API's credential (docs/api.md#keyless-signing-on-google-cloud): the key
    /// file's account, or the keyless account the metadata server named (resolved before, since that takes calls).
    private static func signing(
        _ config: BridgeConfig, upstreams: BridgeUpstreams, keyless: KeylessAccount?, clock: UnixClock
    ) throws(StartupFailure) -> (signer: any CustomTokenSigning, projectID: String, credentials: AccessTokenCache) {
        switch config.firebase.signer {
        case .iam:
            guard let keyless else {
                throw StartupFailure("firebase.signer: iam: the metadata server has not named the account and project yet")
            }
            let signer = IAMSigner(accountEmail: keyless.email, credentials: keyless.credentials, iam: upstreams.iamCredentials)
            return (signer, keyless.projectID, keyless.credentials)
        case .keyFile:
            let account = try loadServiceAccount(config)
            // The key file names the token endpoint: the same https rule as every configured upstream URL.
            guard config.upstream.allowInsecure || config.firebase.usesEmulator || ConfigValidation.isSecureOrLoopback(account.tokenURI) else {
                throw StartupFailure(
                    "firebase.service_account_file: token_uri must be https:// (plain http:// only to a loopback host, or with upstream.allow_insecure: true)"
                )
            }
            let credentials = config.firebase.usesEmulator
                ? AccessTokenCache.emulator(clock: clock)
                : AccessTokenCache(fetching: upstreams.googleTokens, account: account, clock: clock)
            return (KeyFileSigner(account: account), account.projectID, credentials)
        }
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
