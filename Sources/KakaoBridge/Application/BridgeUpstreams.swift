import CurlHTTP

/// The external systems the service calls, each behind a `Sendable` protocol. `live` talks to the configured URLs through
/// libcurl; tests pass in-memory fakes, and nothing above the protocols can tell the difference. Caches (verified Kakao
/// tokens, Google's certificates) are not upstreams: `BridgeState` puts them in front of whatever it is given.
public struct BridgeUpstreams: Sendable {
    public var kakao: any KakaoVerifying
    public var identityToolkit: any IdentityToolkitExchanging
    public var backend: any BackendCompleting
    public var certificates: any PublicKeySetFetching

    public init(
        kakao: any KakaoVerifying, identityToolkit: any IdentityToolkitExchanging, backend: any BackendCompleting,
        certificates: any PublicKeySetFetching
    ) {
        self.kakao = kakao
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.certificates = certificates
    }

    /// The real upstreams at the URLs of `config`, all through one HTTP client. Each gets its own in-flight bound and
    /// metrics; every call has `upstream.timeout_ms`.
    public static func live(_ config: BridgeConfig, http: CurlHTTPClient) -> BridgeUpstreams {
        let timeout = Duration.milliseconds(config.upstream.timeoutMS)
        func upstream(_ name: Upstream.Name) -> Upstream {
            Upstream(name, http: http, timeout: timeout, maxInFlight: config.upstream.maxInFlight)
        }
        return BridgeUpstreams(
            kakao: KakaoClient(upstream: upstream(.kakao), baseURL: config.kakao.apiBaseURL, appID: config.kakao.appID),
            identityToolkit: IdentityToolkitClient(
                upstream: upstream(.identityToolkit), baseURL: config.firebase.identityToolkitURL, apiKey: config.firebase.webAPIKey
            ),
            backend: BackendClient(upstream: upstream(.backend), url: config.backend.loginCompleteURL),
            certificates: GoogleCertificatesClient(upstream: upstream(.certificates), url: config.firebase.securetokenCertsURL)
        )
    }
}
