import BridgeJSON
import BridgeSupport
import Foundation
import Logging
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns
import Testing
import Upstreams
import UpstreamFakes
import BridgeTestSupport
import EndToEndSupport

/// Second hardening round, rules that need no server: lengths, ids, messages, addresses, configuration.
@Suite struct HardeningRuleTests {
    /// 😀 is one character but two UTF-16 code units; Google counts code units.
    static let emoji = "\u{1F600}"

    @Test func uidLengthsCountUTF16CodeUnits() throws {
        let account = try SandboxServiceAccount.generate()
        let service = ServiceAccount(
            clientEmail: account.clientEmail, privateKeyID: account.privateKeyID, projectID: account.projectID,
            privateKey: account.privateKey
        )
        let minter = CustomTokenMinter(account: service, ttlSeconds: 60, tenantID: nil)
        #expect(throws: CustomTokenError.self) { try minter.mint(uid: String(repeating: Self.emoji, count: 65), kakaoID: 1) }
        #expect(try minter.mint(uid: String(repeating: Self.emoji, count: 64), kakaoID: 1).isEmpty == false)

        let rules = IDTokenClaimRules(projectID: "p", tenantID: nil, clockSkewSeconds: 0, clock: .fixed(1_700_000_000))
        func payload(_ sub: String) -> JSONValue {
            ["aud": "p", "iss": "https://securetoken.google.com/p", "sub": .string(sub), "exp": 1_700_000_100, "iat": 1_699_999_000]
        }
        #expect(throws: Problem.self) { try rules.check(payload(String(repeating: Self.emoji, count: 65))) }
        try rules.check(payload(String(repeating: Self.emoji, count: 64)))

        var config = BridgeConfig()
        config.kakao.uidPrefix = String(repeating: Self.emoji, count: 55)
        #expect(ConfigValidation.issues(in: config).contains { $0.path == "kakao.uid_prefix" })
    }

    @Test(arguments: [#"{"id":1234567890.0,"app_id":424242}"#, #"{"id":1.2e9,"app_id":424242}"#, #"{"id":12,"app_id":4.24242e5}"#])
    func aKakaoIdMustBeAnExactInteger(body: String) {
        #expect(throws: JSONMismatch.self) { try KakaoTokenInfo(jsonBytes: Array(body.utf8)) }
        let me = body.replacingOccurrences(of: #","app_id":424242"#, with: "")
        if me != body { #expect(throws: JSONMismatch.self) { try KakaoMe(jsonBytes: Array(me.utf8)) } }
    }

    @Test func googleMessagesThatAreSentencesArePassedOnWhole() {
        #expect(IdentityToolkitClient.messageCode("API key not valid. Please pass a valid API key.") == "API key not valid. Please pass a valid API key.")
        #expect(IdentityToolkitClient.messageCode("INVALID_CUSTOM_TOKEN : The custom token format is incorrect.") == "INVALID_CUSTOM_TOKEN")
        #expect(IdentityToolkitClient.messageCode("USER_DISABLED") == "USER_DISABLED")
        #expect(IdentityToolkitClient.messageCode(nil) == "no error message")
    }

    @Test func ipv6ClientsAreCountedPerSlash64() {
        let key = ClientRateLimit.clientKey
        #expect(key("2001:db8::1") == key("2001:db8::ffff:1"))
        #expect(key("2001:db8:0:0:1:2:3:4") == key("2001:db8::9"))
        #expect(key("2001:db8::1") != key("2001:db8:0:1::1"))
        #expect(key("203.0.113.7") == "203.0.113.7")
        #expect(key("203.0.113.7") != key("203.0.113.8"))
    }

    @Test func evictionKeepsTheRecentlySeenWithoutSortingTheTable() {
        let limiter = RateLimiter(maxClients: 1000)
        let start = ContinuousClock.now
        for index in 0..<1000 {
            _ = limiter.take(client: "c\(index)", perMinute: 60, now: start.advanced(by: .milliseconds(index)))
        }
        _ = limiter.take(client: "newcomer", perMinute: 60, now: start.advanced(by: .seconds(2)))
        #expect(limiter.trackedClients <= 1000)
        // The most recently seen client was kept: its bucket is still spent.
        #expect(limiter.take(client: "c999", perMinute: 1, now: start.advanced(by: .seconds(2))) != .allowed
            || limiter.trackedClients < 1000)
    }

    @Test func upstreamURLsMustBeHTTPSUnlessLoopbackOrAllowed() throws {
        var config = BridgeConfig()
        config.kakao.appID = 1
        config.firebase.serviceAccountFile = "/x"
        config.firebase.securetokenCertsURL = "http://certs.example.com/x"
        config.kakao.apiBaseURL = "http://kapi.example.com"
        config.backend.loginCompleteURL = "http://10.0.0.5/login"
        config.firebase.webAPIKey = "k"
        let paths = Set(ConfigValidation.issues(in: config).map(\.path))
        #expect(paths.isSuperset(of: ["firebase.securetoken_certs_url", "kakao.api_base_url", "backend.login_complete_url"]))
        for loopback in ["http://127.0.0.1:9000", "http://localhost:8080/x", "http://[::1]:80", "http://127.1.2.3"] {
            config.kakao.apiBaseURL = loopback
            #expect(!ConfigValidation.issues(in: config).contains { $0.path == "kakao.api_base_url" }, "\(loopback)")
        }
        config.kakao.apiBaseURL = "http://127.0.0.1.evil.example"
        #expect(ConfigValidation.issues(in: config).contains { $0.path == "kakao.api_base_url" })
        config.upstream.allowInsecure = true
        #expect(!ConfigValidation.issues(in: config).contains { $0.path.hasSuffix("_url") })
    }

    @Test func kakaoCacheSecondsIsCappedAtFiveMinutes() {
        var config = BridgeConfig()
        config.kakao.cacheSeconds = 301
        #expect(ConfigValidation.issues(in: config).contains { $0.path == "kakao.cache_seconds" })
        config.kakao.cacheSeconds = 300
        #expect(!ConfigValidation.issues(in: config).contains { $0.path == "kakao.cache_seconds" })
    }

    @Test func aServiceAccountFileOthersCanReadIsRefusedWithTheFix() throws {
        let account = try SandboxServiceAccount.generate()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try account.writeKeyFile(to: path)
        _ = try ServiceAccount.load(path: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o440], ofItemAtPath: path)
        _ = try ServiceAccount.load(path: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        do {
            _ = try ServiceAccount.load(path: path)
            Issue.record("a world-readable key was accepted")
        } catch {
            #expect(error.description.contains("chmod 600"))
            #expect(error.description.contains("644"))
        }
    }
}

extension HardeningRuleTests {
    @Test func theKeyFilesTokenEndpointMustBeHTTPSToo() async throws {
        var account = try SandboxServiceAccount.generate()
        account.tokenURI = "http://tokens.example.com/token"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sa-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try account.writeKeyFile(to: path)
        var config = BridgeConfig()
        config.kakao.appID = 1
        config.firebase.serviceAccountFile = path
        let keys = try SecureTokenKeys()
        let upstreams = BridgeUpstreams(
            kakao: FakeKakao(), identityToolkit: FakeIdentityToolkit(keys: keys, projectID: account.projectID),
            backend: FakeBackend(), certificates: FakeCertificates(keys: keys),
            googleTokens: FakeGoogleTokens(), firebaseAdmin: FakeFirebaseAdmin(), unlinkNotifier: FakeUnlinkNotifier(),
            kakaoKeys: FakeKakaoKeys(keys: KakaoOIDCKeys()), metadata: FakeMetadataServer(),
            iamCredentials: FakeIAMCredentials(key: account.privateKey)
        )
        let logger = Logger(label: "test")
        #expect(throws: StartupFailure.self) { try Features.assemble(config, upstreams: upstreams, shared: SharedState.inMemory(), clock: .system, logger: logger) }
        config.upstream.allowInsecure = true
        _ = try Features.assemble(config, upstreams: upstreams, shared: SharedState.inMemory(), clock: .system, logger: logger)
    }
}
