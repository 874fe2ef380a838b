import CurlHTTP
import Logging

/// Builds a `BridgeState` from configuration: loads the service account and wires the upstream clients to one HTTP client.
public struct BridgeAssembly: Sendable {
    public let http: CurlHTTPClient
    public let clock: UnixClock

    public init(http: CurlHTTPClient, clock: UnixClock = .system) {
        self.http = http
        self.clock = clock
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `check-config`: the key must load too, not only the YAML.
    public static func checkServiceAccount(_ config: BridgeConfig) throws(Failure) {
        do {
            _ = try ServiceAccount.load(path: config.firebase.serviceAccountFile)
        } catch {
            throw Failure(description: "firebase.service_account_file: \(error)")
        }
    }

    public func makeState(_ config: BridgeConfig, logger: Logger) throws(Failure) -> BridgeState {
        let account: ServiceAccount
        do {
            account = try ServiceAccount.load(path: config.firebase.serviceAccountFile)
        } catch {
            throw Failure(description: "firebase.service_account_file: \(error)")
        }
        var config = config
        if config.firebase.projectID.isEmpty { config.firebase.projectID = account.projectID }

        let timeout = Duration.milliseconds(config.upstream.timeoutMS)
        func upstream(_ name: Upstream.Name) -> Upstream {
            Upstream(name, http: http, timeout: timeout, maxInFlight: config.upstream.maxInFlight)
        }
        let kakaoClient = KakaoClient(upstream: upstream(.kakao), baseURL: config.kakao.apiBaseURL, appID: config.kakao.appID)
        let kakao: any KakaoVerifying = config.kakao.cacheSeconds > 0
            ? KakaoVerificationCache(wrapping: kakaoClient, ttlSeconds: config.kakao.cacheSeconds, clock: clock) : kakaoClient
        let minter = CustomTokenMinter(
            account: account, ttlSeconds: config.firebase.customTokenTTLSeconds,
            tenantID: config.firebase.tenantID, clock: clock
        )
        let identityToolkit: (any IdentityToolkitExchanging)? = config.firebase.webAPIKey.isEmpty ? nil
            : IdentityToolkitClient(
                upstream: upstream(.identityToolkit), baseURL: config.firebase.identityToolkitURL,
                apiKey: config.firebase.webAPIKey
            )
        let backend: (any BackendCompleting)? = config.backend.loginCompleteURL.isEmpty ? nil
            : BackendClient(upstream: upstream(.backend), url: config.backend.loginCompleteURL)
        let idTokens = config.hook.secret.isEmpty ? nil : makeIDTokenVerifier(config, upstream(.certificates), logger, clock: clock)
        return BridgeState(
            config: config, kakao: kakao, minter: minter, identityToolkit: identityToolkit, backend: backend,
            idTokens: idTokens
        )
    }
}
