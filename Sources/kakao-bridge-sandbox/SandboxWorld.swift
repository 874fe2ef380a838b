import BridgeSupport
import CurlHTTP
import FoundationEssentials
import KakaoBridge
import Logging
import StandIns
import Upstreams

/// The sandbox's three Kakao tokens: one that goes through all six steps and two the bridge must refuse.
struct SandboxTokens: Sendable {
    var valid: String
    var otherApp: String
    var expired: String
    /// Its Firebase user is disabled: refused with 403 `user_disabled` before any custom token is minted.
    var disabled: String
    /// A Naver access token of `SandboxWorld.naverUser` (docs/api.md#naver-access-tokens).
    var naver: String
    /// A LINE access token and a LINE ID token (ES256) of `SandboxWorld.lineUser` (docs/api.md#line-access-tokens).
    var line: String
    var lineIDToken: String
}

/// The loopback stand-ins, a generated service account and a bridge configuration pointing at them, with all six steps
/// on. `sandbox` and `demo` share it so the demo proves exactly what the sandbox serves.
final class SandboxWorld: Sendable {
    struct Options: Sendable {
        var defaultsPath = SandboxDefaults.path
        var host: String?
        var port: Int?
        /// `iam`: no key file; the bridge signs through the IAM stand-in with tokens from the metadata stand-in
        /// (docs/api.md#keyless-signing-on-google-cloud).
        var signer = BridgeConfig.Signer.keyFile
    }

    static let otherAppID: Int64 = 100_002
    static let webAPIKey = "sandbox-web-api-key"
    /// The `aud` of the sandbox's security events, as a real app's SETs carry its REST API key.
    static let restAPIKey = "sandbox-rest-api-key"
    static let validUser = StandIns.KakaoAccount(
        id: 4_242_000_001, nickname: "Ryan", email: "ryan@example.com", isEmailValid: true, isEmailVerified: true,
        profileImageURL: "https://k.kakaocdn.net/dn/sandbox/img_640x640.jpg"
    )
    static let otherAppUser = StandIns.KakaoAccount(id: 4_242_000_002, nickname: "Apeach")
    static let expiredUser = StandIns.KakaoAccount(id: 4_242_000_003, nickname: "Muzi")
    static let disabledUser = StandIns.KakaoAccount(id: 4_242_000_004, nickname: "Frodo")
    /// A Naver user of an app made after 2021-05: a base64 id, an email Naver does not say it verified.
    static let lineUser = LineStandIn.Account(
        userID: "U4242aaaabbbbccccddddeeeeffff0001", displayName: "Brown", pictureURL: "https://profile.line-scdn.net/sandbox",
        email: "brown@line.me"
    )
    static let naverUser = NaverStandIn.Account(
        id: "32742776-sandbox-naver-id", nickname: "naverNick", name: "Kim Naver", email: "kim@naver.com",
        profileImage: "https://phinf.pstatic.net/contact/sandbox.png"
    )

    let standIns: StandInSet
    /// The service's one HTTP client for the stand-ins; stopped with the world.
    let http = CurlHTTPClient()
    let config: BridgeConfig
    let tokens: SandboxTokens
    /// Where the non-generated settings came from, for the banner.
    let defaultsSource: String
    /// Empty with `--signer iam`: nothing is written, the bridge has no key.
    let serviceAccountFile: String
    private let directory: URL

    private init(
        standIns: StandInSet, config: BridgeConfig, tokens: SandboxTokens, defaultsSource: String,
        serviceAccountFile: String, directory: URL
    ) {
        self.standIns = standIns
        self.config = config
        self.tokens = tokens
        self.defaultsSource = defaultsSource
        self.serviceAccountFile = serviceAccountFile
        self.directory = directory
    }

    var hookSecret: String { config.hook.secret }

    /// Generates the key and secrets, starts the stand-ins and issues the tokens; the bridge itself is started by the caller.
    static func start(_ options: Options) async throws -> SandboxWorld {
        let account = try SandboxServiceAccount.generate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-bridge-sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let keyless = options.signer == .iam
            let accountFile = keyless ? "" : directory.appendingPathComponent("service-account.json").path
            var generated = [
                "BRIDGE_FIREBASE_SIGNER": options.signer.rawValue,
                "BRIDGE_FIREBASE_SERVICE_ACCOUNT_FILE": accountFile,
                "BRIDGE_FIREBASE_WEB_API_KEY": webAPIKey,
                "BRIDGE_HOOK_SECRET": randomHex(bytes: 32),
                // Kakao's admin keys are 32 hex digits; this one only opens this run's webhook.
                "BRIDGE_KAKAO_ADMIN_KEY": randomHex(bytes: 16),
            ]
            if let host = options.host { generated["BRIDGE_SERVER_HOST"] = host }
            if let port = options.port { generated["BRIDGE_SERVER_PORT"] = String(port) }
            let loaded = try SandboxDefaults.load(path: options.defaultsPath, generated: generated)
            var config = loaded.config

            let standIns = try await StandInSet.start(
                appID: config.kakao.appID, webAPIKey: webAPIKey, account: account, keyless: keyless
            )
            // Written once the stand-ins listen: the file's `token_uri` names the token-endpoint stand-in.
            do {
                if !keyless { try standIns.account.writeKeyFile(to: accountFile) }
            } catch {
                await standIns.stop()
                throw SandboxFailure("cannot write the generated service-account key to \(accountFile)")
            }
            // Keyless: the account and the project come from the metadata stand-in, as on Google Cloud.
            if let metadataURL = standIns.metadataURL, let iamURL = standIns.iamCredentialsURL {
                config.firebase.metadataURL = metadataURL
                config.firebase.iamCredentialsURL = iamURL
            }
            config.kakao.apiBaseURL = standIns.kakaoBaseURL
            // Kakao's unlink API takes the admin key the webhook is opened with (an account's deletion unlinks with it).
            standIns.kakao.adminKey = config.kakao.adminKey
            config.firebase.identityToolkitURL = standIns.identityToolkitBaseURL
            config.firebase.securetokenCertsURL = standIns.certificatesURL
            config.backend.loginCompleteURL = standIns.backendURL
            config.backend.unlinkURL = standIns.backendUnlinkURL
            standIns.backend.configureUnlink(secret: config.hook.secret)
            config.kakao.oidc.jwksURL = standIns.kakaoJWKSURL
            // Naver beside Kakao (docs/api.md#providers), with the secret its unlink callback is keyed with.
            config.naver.apiBaseURL = standIns.naverBaseURL
            config.naver.authBaseURL = standIns.naverBaseURL
            config.line.apiBaseURL = standIns.lineBaseURL
            if config.line.channelID.isEmpty {
                config.line.channelID = standIns.line.channelID
                config.line.channelSecret = standIns.line.channelSecret
            }
            if config.naver.clientID.isEmpty {
                config.naver.clientID = standIns.naver.clientID
                config.naver.clientSecret = standIns.naver.clientSecret
            }
            if config.kakao.events.audiences.isEmpty { config.kakao.events.audiences = [restAPIKey] }
            config.backend.eventsURL = standIns.backendEventsURL
            standIns.backend.configureEvents(secret: config.hook.secret)

            let kakao = standIns.kakao
            let expired = kakao.issueToken(for: expiredUser)
            kakao.expire(expired)
            // What an operator does in the Firebase console: this user exists and is disabled.
            var disabledRecord = standIns.users.newUser(config.kakao.uidPrefix + String(disabledUser.id))
            disabledRecord.displayName = disabledUser.nickname
            disabledRecord.disabled = true
            try standIns.users.create(disabledRecord)
            let tokens = SandboxTokens(
                valid: kakao.issueToken(for: validUser),
                otherApp: kakao.issueToken(for: otherAppUser, appID: otherAppID),
                expired: expired,
                disabled: kakao.issueToken(for: disabledUser),
                naver: standIns.naver.issueToken(for: naverUser),
                line: standIns.line.issueToken(for: lineUser),
                // A day: the sandbox runs for a while, and the ID token is checked locally every time.
                lineIDToken: standIns.line.issueIDToken(for: lineUser, lifetime: 86_400)
            )
            return SandboxWorld(
                standIns: standIns, config: config, tokens: tokens, defaultsSource: loaded.source,
                serviceAccountFile: accountFile, directory: directory
            )
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// The real service, as `serve` builds it. Once it listens, the backend stand-in is pointed at its hook (only then is
    /// the port known) and `onListening` runs.
    func makeApplication(logger: Logger, onListening: @escaping @Sendable (Int) async -> Void) throws(StartupFailure) -> BridgeApplication {
        let backend = standIns.backend
        let kakao = standIns.kakao
        let (http, audience) = (http, config.kakao.events.audiences.first ?? Self.restAPIKey)
        let secret = hookSecret
        let host = Self.connectableHost(config.server.host)
        let environment = BridgeEnvironment(logger: logger) { port in
            backend.configureHook(url: "http://\(host):\(port)/v1/login-complete", secret: secret)
            kakao.securityEventPusher = SecurityEventPusher(
                kakao: kakao, receiverURL: "http://\(host):\(port)/v1/kakao/events", audience: audience, http: http
            )
            await onListening(port)
        }
        return try buildApplication(config: config, upstreams: .live(config, http: http), environment: environment)
    }

    func bridgeURL(port: Int) -> String {
        "http://\(Self.connectableHost(config.server.host)):\(port)"
    }

    /// Until `/readyz` answers 200 (at most 10 s): keyless, the bridge listens before the metadata stand-in has answered.
    func waitUntilReady(bridgeURL: String) async -> Bool {
        for _ in 0..<100 {
            let request = CurlHTTP.HTTPRequest(method: .get, url: bridgeURL + "/readyz", headers: [], timeout: .seconds(2))
            if let response = try? await http.execute(request), response.status == 200 { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    func stop() async {
        http.shutdown()
        await standIns.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// A wildcard listen address is not somewhere to send requests; loopback reaches it.
    static func connectableHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "", "*": "127.0.0.1"
        case "::", "[::]": "[::1]"
        default: host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        }
    }

    private static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: .min ... .max, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined()
    }
}

struct SandboxFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
