import BridgeJSON
import BridgeSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import BridgeFeatures
@testable import KakaoBridge
import Logging
import StandIns
import StateStore
import Upstreams
import UpstreamFakes
import EndToEndSupport
import BridgeTestSupport

/// The application as `buildApplication` composes it, driven through Hummingbird's router test framework (no socket)
/// with in-memory upstreams: the depth for error mapping, the hook's rules, rate limiting, problem bodies and routing.
/// The end-to-end tests (`TestWorld`) keep libcurl and the loopback stand-ins.
final class RouterWorld: Sendable {
    typealias Options = TestWorld.Options

    static let appID = TestWorld.appID
    static let hookSecret = TestWorld.hookSecret
    static let naverClientID = "routerNaverClient"
    static let naverClientSecret = "routerNaverSecret"
    /// One generated service account per test process: key generation is the slow part of setting up.
    static let account: (file: String, account: SandboxServiceAccount) = {
        let account = try! SandboxServiceAccount.generate(projectID: "bridge-router-test")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-bridge-router-\(UUID().uuidString).json").path
        try! account.writeKeyFile(to: path)
        return (path, account)
    }()
    /// One set of certificate keys per test process too (a 2048-bit key and a certificate each world would cost more than
    /// the test). Nothing here rotates them; a test that must rotate keys builds its own `SecureTokenKeys`.
    static let sharedKeys: SecureTokenKeys = try! SecureTokenKeys()
    /// Kakao's OpenID Connect keys, shared the same way (made on first use).
    static let sharedKakaoKeys = KakaoOIDCKeys()

    let kakao: FakeKakao
    /// Naver and LINE (on when the test's `configure` sets `naver.client_id` or `line.channel_id`).
    let naver: FakeNaver
    let line: FakeLine
    let keys: SecureTokenKeys
    let identityToolkit: FakeIdentityToolkit
    let backend: FakeBackend
    let certificates: FakeCertificates
    let googleTokens: FakeGoogleTokens
    let admin: FakeFirebaseAdmin
    let unlinks: FakeUnlinkNotifier
    /// Kakao's JWKS endpoint (docs/api.md#kakao-id-tokens).
    let kakaoKeys: FakeKakaoKeys
    /// The process's memory of unlinked Kakao users, as the unlink webhook fills it.
    let unlinkedUsers: UnlinkedKakaoUsers
    /// The state store and this process's side of it (memory here).
    let shared: SharedState
    /// The current features, as a request sees them.
    let features: @Sendable () -> Features?
    let config: BridgeConfig
    /// The clock the service reads (`Options.clock`): tokens a test signs are stamped from it.
    let clock: UnixClock
    /// Every line the service logged, at trace level.
    let logs: LogSink
    private let client: any TestClientProtocol

    private init(
        kakao: FakeKakao, keys: SecureTokenKeys, identityToolkit: FakeIdentityToolkit, backend: FakeBackend,
        certificates: FakeCertificates, googleTokens: FakeGoogleTokens, admin: FakeFirebaseAdmin, unlinks: FakeUnlinkNotifier,
        kakaoKeys: FakeKakaoKeys, unlinkedUsers: UnlinkedKakaoUsers, shared: SharedState, features: @escaping @Sendable () -> Features?,
        config: BridgeConfig, clock: UnixClock, logs: LogSink, client: any TestClientProtocol, naver: FakeNaver, line: FakeLine
    ) {
        self.naver = naver
        self.line = line
        self.shared = shared
        self.features = features
        self.clock = clock
        self.unlinks = unlinks
        self.kakaoKeys = kakaoKeys
        self.unlinkedUsers = unlinkedUsers
        self.googleTokens = googleTokens
        self.admin = admin
        self.kakao = kakao
        self.keys = keys
        self.identityToolkit = identityToolkit
        self.backend = backend
        self.certificates = certificates
        self.config = config
        self.logs = logs
        self.client = client
    }

    var projectID: String { Self.account.account.projectID }

    /// The same options as `TestWorld` (which steps are on, the clock, any configuration change).
    static func with<T: Sendable>(
        _ options: Options = Options(), certificatesMaxAge: Int64? = 3600, kakaoKeys oidcKeys: KakaoOIDCKeys = sharedKakaoKeys,
        kakaoKeysMaxAge: Int64? = nil, _ body: @escaping @Sendable (RouterWorld) async throws -> T
    ) async throws -> T {
        BridgeMetrics.bootstrap()
        let keys = sharedKeys
        var config = BridgeConfig()
        config.kakao.appID = appID
        config.firebase.serviceAccountFile = account.file
        if let tenant = options.tenantID { config.firebase.tenantID = tenant }
        if options.firebase || options.backend { config.firebase.webAPIKey = TestWorld.apiKey }
        if options.backend { config.backend.loginCompleteURL = "http://127.0.0.1:9/never-called" }
        if options.hook || options.backend { config.hook.secret = hookSecret }
        let naver = FakeNaver()
        let line = FakeLine()
        if options.naver {
            config.naver.clientID = naverClientID
            config.naver.clientSecret = naverClientSecret
        }
        if options.line {
            config.line.channelID = line.standIn.channelID
            config.line.channelSecret = line.standIn.channelSecret
        }
        options.configure(&config)

        let identityToolkit = FakeIdentityToolkit(keys: keys, projectID: account.account.projectID)
        let certificates = FakeCertificates(keys: keys, maxAge: certificatesMaxAge)
        let kakao = FakeKakao()
        let backend = FakeBackend()
        let googleTokens = FakeGoogleTokens()
        let admin = FakeFirebaseAdmin()
        let unlinks = FakeUnlinkNotifier()
        let kakaoKeys = FakeKakaoKeys(keys: oidcKeys, maxAge: kakaoKeysMaxAge)
        let logs = LogSink.memory()
        let environment = BridgeEnvironment(logger: .bridge(level: "trace", format: "json", sink: logs), clock: options.clock)
        var upstreams = BridgeUpstreams(
            kakao: kakao, identityToolkit: identityToolkit, backend: backend, certificates: certificates,
            googleTokens: googleTokens, firebaseAdmin: admin, unlinkNotifier: unlinks, kakaoKeys: kakaoKeys,
            metadata: FakeMetadataServer(), iamCredentials: FakeIAMCredentials(key: Self.account.account.privateKey),
            naver: naver, line: line, lineKeys: line
        )
        // An account deletion's unlinks at the providers.
        upstreams.kakaoUnlink = FakeProviderUnlink()
        upstreams.naverUnlink = FakeProviderUnlink()
        upstreams.lineUnlink = FakeProviderUnlink()
        let app = try buildApplication(config: config, upstreams: upstreams, environment: environment)
        let unlinkedUsers = environment.shared.unlinkedUsers
        let shared = environment.shared
        let holder = app.holder
        let configured = config
        return try await app.test(.router) { client in
            let world = RouterWorld(
                kakao: kakao, keys: keys, identityToolkit: identityToolkit, backend: backend, certificates: certificates,
                googleTokens: googleTokens, admin: admin, unlinks: unlinks, kakaoKeys: kakaoKeys, unlinkedUsers: unlinkedUsers,
                shared: shared, features: { holder.current }, config: configured, clock: options.clock, logs: logs, client: client,
                naver: naver, line: line
            )
            // As the backend stand-in does, the fake backend asks the bridge's hook who the user is.
            if options.backend {
                backend.callHook { body in
                    try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer " + hookSecret)], body: body).status
                }
            }
            defer { backend.callHook(nil) }
            return try await body(world)
        }
    }

    // MARK: Kakao users

    func validToken(
        id: Int64 = 1_234_567_890, nickname: String? = "Ryan", email: String? = "ryan@example.com", emailVerified: Bool = true
    ) -> String {
        kakao.issue(KakaoUser(
            id: id, nickname: nickname, email: emailVerified ? email : nil, emailVerified: emailVerified && email != nil ? true : nil,
            profileImageURL: "https://k.kakaocdn.net/dn/profile.jpg"
        ))
    }

    func otherAppToken() -> String { kakao.issue(.failure(.kakaoAppMismatch())) }

    /// A Firebase ID token for `uid`, signed by the keys the fake certificate endpoint publishes.
    func idToken(uid: String, _ change: (inout [String: any Sendable]) -> Void = { _ in }) throws -> String {
        var payload = SecureTokenKeys.idTokenPayload(projectID: projectID, uid: uid, now: UnixClock.system.now())
        change(&payload)
        return try keys.signIDToken(payload: payload)
    }

    // MARK: Calling the application

    func request(
        _ method: HTTPRequest.Method, _ path: String, headers: [(String, String)] = [], body: String? = nil
    ) async throws -> Reply {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
        }
        if body != nil, fields[.contentType] == nil { fields[.contentType] = "application/json" }
        let response = try await client.executeRequest(uri: path, method: method, headers: fields, body: body.map { ByteBuffer(string: $0) })
        return Reply(
            status: response.status.code,
            headers: response.headers.map { (name: $0.name.canonicalName, value: $0.value) },
            body: Array(buffer: response.body)
        )
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
        try await request(.get, path, headers: headers)
    }

    func post(_ path: String, headers: [(String, String)] = [], body: String) async throws -> Reply {
        try await request(.post, path, headers: headers, body: body)
    }

    func exchange(_ token: String) async throws -> Reply {
        try await get("/v1/token-exchange", headers: [("Authorization", "Bearer " + token)])
    }
}

extension RouterWorld {
    /// One round of this instance's queue of unlink and security events, now (`AccountEventWorker`; the application's
    /// own worker also runs here, as a service, once a second).
    func retryDueUnlinks() async {
        guard let actions = features()?.accountActions else { return }
        await AccountEventWorker(shared: shared, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }) { actions }
            .takeDue(actions)
    }

    /// Rounds of `retryDueUnlinks` until `done`, or `timeout`; true when `done`. The application's own worker runs beside
    /// the test (`buildApplication`'s services, a round a second): an event it has taken is leased to it, and a round of
    /// the test's skips the event until the worker is through with it.
    func retryDueUnlinks(until done: () async throws -> Bool, timeout: Duration = .seconds(10)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            await retryDueUnlinks()
            if try await done() { return true }
            if ContinuousClock.now >= deadline { return false }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The unlink events in the store in `state`.
    func unlinkEvents(_ state: AccountEventState) async throws -> [AccountEvent] {
        try await shared.store.events(state: state)
    }
}
