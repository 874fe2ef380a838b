import BridgeSupport
import CurlHTTP

/// The external systems the service calls, each behind a `Sendable` protocol. `live` talks to the configured URLs through
/// libcurl; tests pass in-memory fakes, and nothing above the protocols can tell the difference. Caches (verified Kakao
/// tokens, Google's certificates) are not upstreams: `Features.assemble` puts them in front of whatever it is given.
public struct BridgeUpstreams: Sendable {
    public var kakao: any KakaoVerifying
    public var identityToolkit: any IdentityToolkitExchanging
    public var backend: any BackendCompleting
    public var certificates: any PublicKeySetFetching
    /// Google's token endpoint: access tokens for the Admin API (not called with the Auth Emulator).
    public var googleTokens: any GoogleAccessTokenFetching
    /// The Firebase Auth Admin API: user records (docs/api.md#firebase-user-records).
    public var firebaseAdmin: any FirebaseAdminCalling
    /// The backend's unlink URL: told when a Kakao user unlinks the app.
    public var unlinkNotifier: any UnlinkNotifying
    /// Kakao's OpenID Connect keys (`kakao.oidc.jwks_url`); only fetched when `kakao.oidc.audiences` is set.
    public var kakaoKeys: any PublicKeySetFetching
    /// The backend's events URL: told of each Kakao security event that had an action.
    public var eventsNotifier: any SecurityEventNotifying
    /// Google Cloud's metadata server (`firebase.metadata_url`); only called with `firebase.signer: iam`.
    public var metadata: any MetadataServerCalling
    /// The IAM Credentials API's `signBlob` (`firebase.iam_credentials_url`); only called with `firebase.signer: iam`.
    public var iamCredentials: any BlobSigning
    /// Naver's profile API (`naver.api_base_url`); only called when `naver.client_id` is set.
    public var naver: any NaverVerifying
    /// LINE's verify and profile (`line.api_base_url`); only called when `line.channel_id` is set.
    public var line: any LineVerifying
    /// LINE's ID-token keys; only fetched when `line.channel_id` is set.
    public var lineKeys: any LineKeySetFetching
    /// The unlinks of an account deletion (docs/api.md#deleting-an-account): Kakao's with `kakao.admin_key`, Naver's
    /// revoke with `naver.client_secret`, LINE's deauthorize with `line.channel_secret`; off (`ProviderUnlinkOff`) otherwise.
    public var kakaoUnlink: any ProviderUnlinking = ProviderUnlinkOff()
    public var naverUnlink: any ProviderUnlinking = ProviderUnlinkOff()
    public var lineUnlink: any ProviderUnlinking = ProviderUnlinkOff()

    public init(
        kakao: any KakaoVerifying, identityToolkit: any IdentityToolkitExchanging, backend: any BackendCompleting,
        certificates: any PublicKeySetFetching, googleTokens: any GoogleAccessTokenFetching,
        firebaseAdmin: any FirebaseAdminCalling, unlinkNotifier: any UnlinkNotifying, kakaoKeys: any PublicKeySetFetching,
        metadata: any MetadataServerCalling, iamCredentials: any BlobSigning,
        eventsNotifier: any SecurityEventNotifying = NoSecurityEventNotifier(),
        naver: any NaverVerifying = NaverOff(), line: any LineVerifying = LineOff(), lineKeys: any LineKeySetFetching = LineOff()
    ) {
        self.naver = naver
        self.line = line
        self.lineKeys = lineKeys
        self.kakao = kakao
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.certificates = certificates
        self.googleTokens = googleTokens
        self.firebaseAdmin = firebaseAdmin
        self.unlinkNotifier = unlinkNotifier
        self.kakaoKeys = kakaoKeys
        self.eventsNotifier = eventsNotifier
        self.metadata = metadata
        self.iamCredentials = iamCredentials
    }

    /// The real upstreams at the URLs of `config`, all through one HTTP client. Each gets its own in-flight bound and
    /// metrics; every call has `upstream.timeout_ms`. With the Auth Emulator, Identity Toolkit and the Admin API are
    /// called at the emulator (the token endpoint's URL comes from the service account, per call).
    public static func live(_ config: BridgeConfig, http: CurlHTTPClient) -> BridgeUpstreams {
        let timeout = Duration.milliseconds(config.upstream.timeoutMS)
        func upstream(_ name: Upstream.Name) -> Upstream {
            Upstream(name, http: http, timeout: timeout, maxInFlight: config.upstream.maxInFlight)
        }
        var upstreams = BridgeUpstreams(
            kakao: KakaoClient(upstream: upstream(.kakao), baseURL: config.kakao.apiBaseURL, appID: config.kakao.appID),
            identityToolkit: IdentityToolkitClient(
                upstream: upstream(.identityToolkit), baseURL: config.firebase.effectiveIdentityToolkitURL,
                apiKey: config.firebase.webAPIKey
            ),
            backend: BackendClient(upstream: upstream(.backend), url: config.backend.loginCompleteURL),
            certificates: GoogleCertificatesClient.live(upstream: upstream(.certificates), url: config.firebase.securetokenCertsURL),
            googleTokens: GoogleTokenClient(upstream: upstream(.googleToken)),
            firebaseAdmin: AdminAPIClient(upstream: upstream(.adminAPI), identityToolkitURL: config.firebase.effectiveIdentityToolkitURL),
            // The notices carry the first of `hook.secret`'s secrets (docs/configuration.md#rotating-the-hook-secret).
            unlinkNotifier: BackendNoticeClient(upstream: upstream(.backendUnlink), url: config.backend.unlinkURL, secret: config.hook.secret),
            kakaoKeys: KakaoKeysClient.live(upstream: upstream(.kakaoKeys), url: config.kakao.oidc.jwksURL),
            metadata: MetadataServerClient(upstream: upstream(.metadata), baseURL: config.firebase.effectiveMetadataURL),
            iamCredentials: IAMCredentialsClient(upstream: upstream(.iamCredentials), baseURL: config.firebase.iamCredentialsURL),
            eventsNotifier: BackendNoticeClient(upstream: upstream(.backendEvents), url: config.backend.eventsURL, secret: config.hook.secret),
            // Only the providers that are on get an upstream: /metrics shows no series of a provider the service has off.
            naver: config.naver.enabled ? NaverClient(upstream: upstream(.naver), baseURL: config.naver.apiBaseURL) : NaverOff(),
            line: config.line.enabled
                ? LineClient(upstream: upstream(.line), baseURL: config.line.apiBaseURL, channelID: config.line.channelID) : LineOff(),
            lineKeys: config.line.enabled ? LineKeysClient.live(upstream: upstream(.lineKeys), baseURL: config.line.apiBaseURL) : LineOff()
        )
        if !config.kakao.adminKey.isEmpty {
            upstreams.kakaoUnlink = KakaoUnlinkClient(upstream: upstream(.kakao), baseURL: config.kakao.apiBaseURL, adminKey: config.kakao.adminKey)
        }
        if config.naver.unlinkCallbackEnabled {
            upstreams.naverUnlink = NaverRevokeClient(
                upstream: upstream(.naverAuth), baseURL: config.naver.authBaseURL, clientID: config.naver.clientID,
                clientSecret: config.naver.clientSecret
            )
        }
        if config.line.enabled && !config.line.channelSecret.isEmpty {
            upstreams.lineUnlink = LineDeauthorizeClient(
                upstream: upstream(.line), baseURL: config.line.apiBaseURL, channelID: config.line.channelID,
                channelSecret: config.line.channelSecret
            )
        }
        return upstreams
    }
}
