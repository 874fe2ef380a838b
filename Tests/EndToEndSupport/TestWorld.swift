import Upstreams
import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import BridgeFeatures
import KakaoBridge
import OpenSSLCrypto
import StandIns

/// Stand-ins for all four upstreams plus the real bridge configured against them: what a test of the whole flow needs.
package final class TestWorld: Sendable {
    package struct Options {
        package var firebase = false
        package var backend = false
        package var hook = false
        /// Kakao's unlink webhook on, with the backend stand-in's unlink URL (and the hook secret it needs).
        package var unlink = false
        /// With `kakao.events.audiences` set by the test: `backend.events_url` at the backend stand-in.
        package var notifyEvents = false
        /// Naver on (`naver.client_id`, and `naver.client_secret` for its unlink callback) against the Naver stand-in.
        package var naver = false
        /// LINE on (`line.channel_id` and `line.channel_secret`) against the LINE stand-in.
        package var line = false
        package var tenantID: String?
        package var clock: UnixClock = .system
        /// Logins admitted at once (`RequestAdmission`); `nil`: the service's default.
        package var admissionLimit: Int?
        /// `firebase.signer: iam` against the metadata and IAM stand-ins, with no key file
        /// (docs/api.md#keyless-signing-on-google-cloud). The bridge may listen before it is ready: `waitUntilReady()`.
        package var keyless = false
        package var configure: @Sendable (inout BridgeConfig) -> Void = { _ in }
        /// Runs once the stand-ins listen, before the bridge starts (a fault the bridge must meet at start).
        package var prepare: @Sendable (StandInSet) -> Void = { _ in }

        /// What the memberwise initializer gave when this type was internal to the test target.
        package init(
            firebase: Bool = false, backend: Bool = false, hook: Bool = false, unlink: Bool = false, notifyEvents: Bool = false,
            naver: Bool = false, line: Bool = false, tenantID: String? = nil, clock: UnixClock = .system, admissionLimit: Int? = nil,
            keyless: Bool = false, configure: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in },
            prepare: @escaping @Sendable (StandInSet) -> Void = { _ in }
        ) {
            self.firebase = firebase
            self.backend = backend
            self.hook = hook
            self.unlink = unlink
            self.notifyEvents = notifyEvents
            self.naver = naver
            self.line = line
            self.tenantID = tenantID
            self.clock = clock
            self.admissionLimit = admissionLimit
            self.keyless = keyless
            self.configure = configure
            self.prepare = prepare
        }
    }

    package static let appID: Int64 = 424242
    package static let otherAppID: Int64 = 777
    package static let apiKey = "test-web-api-key"
    package static let hookSecret = "0123456789abcdef0123456789abcdef-hook"
    package static let adminKey = "fedcba9876543210fedcba9876543210"

    package let kakao: KakaoStandIn
    package let naver: NaverStandIn
    package let line: LineStandIn
    package let keys: SecureTokenKeys
    package let certificates: CertificatesStandIn
    package let identityToolkit: IdentityToolkitStandIn
    package let backend: BackendStandIn
    /// The token endpoint, the Admin API and the user store they share with Identity Toolkit.
    package let googleToken: GoogleTokenStandIn
    package let admin: AdminAPIStandIn
    package var users: FirebaseUserStore { admin.users }
    /// Keyless only: the metadata server and the IAM Credentials API.
    package let metadata: MetadataServerStandIn?
    package let iamCredentials: IAMCredentialsStandIn?
    package let account: SandboxServiceAccount
    package let config: BridgeConfig
    package let bridge: RunningBridge
    /// The bridge's HTTP client to the stand-ins, and the test's to the bridge.
    package let http: CurlHTTPClient
    package let servers: Servers
    private let directory: URL

    private init(
        kakao: KakaoStandIn, keys: SecureTokenKeys, certificates: CertificatesStandIn,
        identityToolkit: IdentityToolkitStandIn, backend: BackendStandIn, googleToken: GoogleTokenStandIn, admin: AdminAPIStandIn,
        account: SandboxServiceAccount, config: BridgeConfig, bridge: RunningBridge, http: CurlHTTPClient, servers: Servers,
        directory: URL, metadata: MetadataServerStandIn?, iamCredentials: IAMCredentialsStandIn?, naver: NaverStandIn, line: LineStandIn
    ) {
        self.line = line
        self.naver = naver
        self.metadata = metadata
        self.iamCredentials = iamCredentials
        self.googleToken = googleToken
        self.admin = admin
        self.http = http
        self.kakao = kakao
        self.keys = keys
        self.certificates = certificates
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.account = account
        self.config = config
        self.bridge = bridge
        self.servers = servers
        self.directory = directory
    }

    package struct Servers: Sendable {
        package let kakao: StandInServer
        package let certificates: StandInServer
        package let identityToolkit: StandInServer
        package let backend: StandInServer
        package let googleToken: StandInServer
        /// Keyless only.
        package let metadata: StandInServer?
        package let iamCredentials: StandInServer?
        package let naver: StandInServer
        package let line: StandInServer
        package var all: [StandInServer] {
            [kakao, certificates, identityToolkit, backend, googleToken] + [metadata, iamCredentials].compactMap { $0 } + [naver, line]
        }
        package var identityToolkitURL: String { identityToolkit.baseURL }
    }

    package static func start(_ options: Options = Options()) async throws -> TestWorld {
        let account = try SandboxServiceAccount.generate(projectID: "bridge-test")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-bridge-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let accountFile = directory.appendingPathComponent("service-account.json")

        let set = try await StandInSet.start(
            appID: appID, webAPIKey: apiKey, account: account, tenantID: options.tenantID, keyless: options.keyless
        )
        // Written once the token-endpoint stand-in listens: its URL is the file's `token_uri`. Mode 600: the service
        // refuses a key file other users can read. Keyless, the bridge gets none.
        try set.account.writeKeyFile(to: accountFile.path)
        let (kakao, keys, certificates, identityToolkit, backend) = (set.kakao, set.keys, set.certificates, set.identityToolkit, set.backend)
        let (kakaoServer, certificatesServer, identityServer, backendServer) =
            (set.kakaoServer, set.certificatesServer, set.identityToolkitServer, set.backendServer)

        var config = BridgeConfig()
        config.kakao.appID = appID
        config.kakao.apiBaseURL = kakaoServer.baseURL
        config.firebase.serviceAccountFile = accountFile.path
        if options.keyless, let metadataURL = set.metadataURL, let iamURL = set.iamCredentialsURL {
            config.firebase.signer = .iam
            config.firebase.serviceAccountFile = ""
            config.firebase.metadataURL = metadataURL
            config.firebase.iamCredentialsURL = iamURL
        }
        config.firebase.identityToolkitURL = identityServer.baseURL
        config.firebase.securetokenCertsURL = CertificatesStandIn.url(on: certificatesServer)
        // Used only by tests that turn OpenID Connect on (kakao.oidc.audiences).
        config.kakao.oidc.jwksURL = KakaoStandIn.jwksURL(on: kakaoServer)
        config.upstream.timeoutMS = 2000
        if let tenant = options.tenantID { config.firebase.tenantID = tenant }
        if options.firebase || options.backend { config.firebase.webAPIKey = apiKey }
        if options.backend { config.backend.loginCompleteURL = BackendStandIn.url(on: backendServer) }
        if options.hook || options.backend || options.unlink { config.hook.secret = hookSecret }
        if options.unlink {
            config.kakao.adminKey = adminKey
            // Kakao's unlink API takes the same admin key (an account's deletion unlinks with it).
            kakao.adminKey = adminKey
            config.backend.unlinkURL = BackendStandIn.unlinkURL(on: backendServer)
            backend.configureUnlink(secret: hookSecret)
        }
        if options.notifyEvents {
            config.hook.secret = hookSecret
            config.backend.eventsURL = BackendStandIn.eventsURL(on: backendServer)
            backend.configureEvents(secret: hookSecret)
        }
        // Pointed at the stand-in whether on or not: a test that turns Naver on in `configure` needs only the id.
        config.naver.apiBaseURL = set.naverBaseURL
        config.naver.authBaseURL = set.naverBaseURL
        config.line.apiBaseURL = set.lineBaseURL
        if options.line {
            config.line.channelID = set.line.channelID
            config.line.channelSecret = set.line.channelSecret
        }
        if options.naver {
            config.naver.clientID = set.naver.clientID
            config.naver.clientSecret = set.naver.clientSecret
        }
        options.configure(&config)
        options.prepare(set)

        let http = CurlHTTPClient()
        let bridge = try await RunningBridge.start(
            config: config, upstreams: .live(config, http: http), clock: options.clock, admissionLimit: options.admissionLimit
        )
        if options.hook || options.backend {
            backend.configureHook(url: bridge.baseURL + "/v1/login-complete", secret: hookSecret)
        }
        return TestWorld(
            kakao: kakao, keys: keys, certificates: certificates, identityToolkit: identityToolkit, backend: backend,
            googleToken: set.googleToken, admin: set.admin, account: set.account, config: config, bridge: bridge, http: http,
            servers: Servers(
                kakao: kakaoServer, certificates: certificatesServer, identityToolkit: identityServer, backend: backendServer,
                googleToken: set.googleTokenServer, metadata: set.metadataServer, iamCredentials: set.iamCredentialsServer,
                naver: set.naverServer, line: set.lineServer
            ),
            directory: directory, metadata: set.metadata, iamCredentials: set.iamCredentials, naver: set.naver, line: set.line
        )
    }

    package func stop() async {
        await bridge.stop()
        for server in servers.all { await server.stop() }
        http.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `body` with a started world and always stops it.
    /// Runs `body` with a started world and always stops it; one world at a time (`EndToEndLock`).
    package static func with<T>(_ options: Options = Options(), _ body: (TestWorld) async throws -> T) async throws -> T {
        try await EndToEndLock.run {
            let world = try await start(options)
            do {
                let result = try await body(world)
                await world.stop()
                return result
            } catch {
                await world.stop()
                throw error
            }
        }
    }

    /// Until `/readyz` answers 200, at most `timeout`: keyless, the bridge listens before the metadata server answered.
    @discardableResult
    package func waitUntilReady(timeout: Duration = .seconds(10)) async throws -> Reply {
        let deadline = ContinuousClock.now + timeout
        var last = try await get("/readyz")
        while last.status != 200, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            last = try await get("/readyz")
        }
        return last
    }

    // MARK: Kakao users

    package func validToken(
        id: Int64 = 1_234_567_890, nickname: String? = "Ryan", email: String? = "ryan@example.com",
        emailValid: Bool = true, emailVerified: Bool = true
    ) -> String {
        kakao.issueToken(for: StandIns.KakaoAccount(
            id: id, nickname: nickname, email: email, isEmailValid: emailValid, isEmailVerified: emailVerified,
            profileImageURL: "https://k.kakaocdn.net/dn/profile.jpg"
        ))
    }

    package func otherAppToken(id: Int64 = 55) -> String {
        kakao.issueToken(for: StandIns.KakaoAccount(id: id, nickname: "Other"), appID: Self.otherAppID)
    }

    // MARK: Calling the bridge

    package func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
        Reply(try await http.execute(HTTPRequest(method: .get, url: bridge.baseURL + path, headers: headers)))
    }

    package func post(_ path: String, headers: [(String, String)] = [], body: String) async throws -> Reply {
        Reply(try await http.execute(HTTPRequest(
            method: .post, url: bridge.baseURL + path, headers: headers + [("Content-Type", "application/json")],
            body: Array(body.utf8)
        )))
    }

    package func exchange(_ token: String) async throws -> Reply {
        try await get("/v1/token-exchange", headers: [("Authorization", "Bearer " + token)])
    }

    /// A GET on the admin port (`server.admin_port` set by the test's `configure`).
    package func adminGet(_ path: String) async throws -> Reply {
        guard let admin = bridge.adminURL else { throw HarnessError("no admin port: set server.admin_port") }
        return Reply(try await http.execute(HTTPRequest(method: .get, url: admin + path)))
    }

    /// Kakao's unlink webhook as Kakao sends it: GET with a query, or POST with a form body.
    package func unlinkWebhook(userID: Int64, referrer: String = "UNLINK_FROM_APPS", post: Bool = false) async throws -> Reply {
        let fields = "app_id=\(Self.appID)&user_id=\(userID)&referrer_type=\(referrer)"
        let authorization = ("Authorization", "KakaoAK " + Self.adminKey)
        if !post { return try await get("/v1/kakao/unlink?" + fields, headers: [authorization]) }
        return Reply(try await http.execute(HTTPRequest(
            method: .post, url: bridge.baseURL + "/v1/kakao/unlink",
            headers: [authorization, ("Content-Type", "application/x-www-form-urlencoded")], body: Array(fields.utf8)
        )))
    }
}

/// A bridge answer with its JSON parsed.
package struct Reply {
    package let status: Int
    package let headers: [(name: String, value: String)]
    package let text: String
    package let json: JSONValue?

    package init(_ response: HTTPResponse) {
        self.init(status: response.status, headers: response.headers, body: response.body)
    }

    package init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers.map { (name: $0.name.lowercased(), value: $0.value) }
        text = String(decoding: body, as: UTF8.self)
        json = JSONValue.parse(body)
    }

    package func header(_ name: String) -> String? { headers.first { $0.name == name.lowercased() }?.value }

    package var code: String? { json?["code"]?.stringValue }

    /// The problem body of docs/errors.md#problem-body, checked in full.
    package var isProblem: Bool {
        header("content-type") == "application/problem+json"
            && json?["type"]?.stringValue != nil && json?["title"]?.stringValue != nil
            && json?["status"]?.int64Value == Int64(status) && json?["detail"]?.stringValue != nil
            && code != nil && json?["request_id"]?.stringValue == header("x-request-id")
    }
}
