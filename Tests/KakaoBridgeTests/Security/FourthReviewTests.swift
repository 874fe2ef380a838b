import BridgeJSON
import BridgeSupport
import Foundation
import Logging
import Synchronization
import StandIns
@testable import BridgeFeatures
@testable import KakaoBridge
@testable import StateStore
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// The fourth outside review's low and informational findings, each held by a test: a revoked token that a verification
/// under way would have cached again, the SQLite file's mode, the metadata server's address, a Kakao ID token's `typ`,
/// how long a security event's `jti` is remembered, and a deadline that really gives up.
@Suite("Fourth security review: caching after a change, the state file, the metadata host, typ, jti, deadlines")
struct FourthReviewTests {
    // MARK: A revoked token still cached

    @Test func aTokenRevokedEventStopsAVerificationUnderWayFromBeingCached() async throws {
        try await RouterWorld.with(SecurityEventRuleTests.options { $0.kakao.cacheSeconds = 300 }) { world async throws in
            let token = world.validToken()
            world.kakao.delay(.milliseconds(400))
            async let login = world.exchange(token)
            try await Task.sleep(for: .milliseconds(100))
            let set = try SecurityEventRuleTests.sign(world) { payload in
                payload["events"] = [KakaoSecurityEventType.tokenRevoked.rawValue: [
                    "subject": ["subject_type": "iss-sub", "iss": "https://kauth.kakao.com", "sub": "1234567890"] as [String: any Sendable],
                ] as [String: any Sendable]] as [String: any Sendable]
            }
            #expect(try await SecurityEventRuleTests.send(world, set).status == 202)
            #expect(try await login.status == 200, "the verification began before the event: Kakao had not revoked it yet")
            world.kakao.delay(nil)
            let before = world.kakao.calls
            #expect(try await world.exchange(token).status == 200)
            #expect(world.kakao.calls > before, "the verification under way was cached although the token was revoked meanwhile")
        }
    }

    @Test func aChangeMarkStopsCachingOnlyOfVerificationsThatBeganBeforeIt() {
        let now = Mutex<Int64>(1_000)
        let users = UnlinkedKakaoUsers(clock: UnixClock { now.withLock { $0 } })
        #expect(users.allowsCaching(7, verificationStartedAt: 999))
        users.recordChange(7)
        #expect(!users.allowsCaching(7, verificationStartedAt: 999))
        #expect(!users.allowsCaching(7, verificationStartedAt: 1_000), "the mark's own second is not trusted")
        #expect(users.allowsCaching(7, verificationStartedAt: 1_001))
        #expect(users.unlinkedAt(7) == nil, "a change ends no session")
        #expect(users.allowsCaching(8, verificationStartedAt: 999))
    }

    // MARK: The SQLite file

    @Test func theSQLiteFileIsCreatedPrivateAndAWritableOneOrDirectoryIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-mode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        chmod(directory.path, 0o700)
        let path = directory.appendingPathComponent("state.db").path
        let store = try await SQLiteStateStore.open(path: path, logger: .init(label: "t"))
        await store.close()
        #expect(FileBytes.mode(path: path).map { $0 & 0o777 } == 0o600)

        chmod(path, 0o666)
        await #expect(throws: StateStoreError.self) { try await SQLiteStateStore.open(path: path, logger: .init(label: "t")) }
        #expect(PrivateFile.writableRefusal(stateFile: path)?.contains("chmod 600") == true)

        chmod(path, 0o600)
        chmod(directory.path, 0o1777)
        let refusal = PrivateFile.writableRefusal(stateFile: path)
        #expect(refusal?.contains("directory") == true, "\(refusal ?? "accepted")")
        await #expect(throws: StateStoreError.self) { try await SQLiteStateStore.open(path: path, logger: .init(label: "t")) }
        chmod(directory.path, 0o700)
        #expect(PrivateFile.writableRefusal(stateFile: path) == nil)
    }

    // MARK: The metadata server's address

    @Test func theMetadataAddressIsHostAndPortOnly() {
        for bad in ["user@evil.example", "evil.example/x", "evil.example?x", "evil.example#x", "a b", "evil.example:99999", ""] {
            #expect(ConfigValidation.plainHost(bad) == nil, "\(bad)")
        }
        #expect(ConfigValidation.plainHost("169.254.169.254") == "169.254.169.254")
        #expect(ConfigValidation.plainHost("metadata.google.internal:80") == "metadata.google.internal")
        #expect(ConfigValidation.plainHost("[::1]:8080") == "::1")
        for bad in ["http://user@evil.example", "http://evil.example/computeMetadata", "http://evil.example?x", "https://x", "http://"] {
            #expect(ConfigValidation.metadataHost(ofURL: bad) == nil, "\(bad)")
        }
        #expect(ConfigValidation.metadataHost(ofURL: "http://127.0.0.1:9000/") == "127.0.0.1")

        var config = BridgeConfig()
        config.firebase.signer = .iam
        config.firebase.metadataHost = "user@evil.example"
        #expect(ConfigValidation.issues(in: config).contains { $0.path == ConfigValidation.metadataHostPath })
        config.firebase.metadataHost = ""
        config.firebase.metadataURL = "http://evil.example/?"
        #expect(ConfigValidation.issues(in: config).contains { $0.path == "firebase.metadata_url" })
    }

    @Test func aMetadataServerThatIsNotGooglesNorLocalIsWarnedAbout() {
        var firebase = BridgeConfig.Firebase()
        firebase.signer = .iam
        #expect(ConfigValidation.metadataWarning(firebase) == nil)
        for fine in ["169.254.169.254", "metadata.google.internal:80", "127.0.0.1:8081", "localhost"] {
            firebase.metadataHost = fine
            #expect(ConfigValidation.metadataWarning(firebase) == nil, "\(fine)")
        }
        firebase.metadataHost = "10.0.0.9"
        #expect(ConfigValidation.metadataWarning(firebase)?.contains("10.0.0.9") == true)
        firebase.metadataHost = ""
        firebase.metadataURL = "http://proxy.example:8080"
        #expect(ConfigValidation.metadataWarning(firebase)?.contains("proxy.example") == true)
        firebase.signer = .keyFile
        #expect(ConfigValidation.metadataWarning(firebase) == nil, "only keyless signing asks the metadata server")
    }

    // MARK: A Kakao ID token's typ

    @Test func aKakaoSignedJWTOfAnotherTypIsNoLogin() throws {
        let keys = KakaoOIDCKeys()
        let payload: [String: any Sendable] = ["iss": "https://kauth.kakao.com", "sub": "1"]
        for typ in ["secevent+jwt", "application/secevent+jwt", "at+jwt", "JWS"] {
            let token = try keys.signIDToken(header: ["alg": "RS256", "typ": typ, "kid": try keys.currentKID], payload: payload)
            #expect(throws: Problem.self, "\(typ)") { try KakaoIDTokenVerifier.parse(token) }
        }
        for typ in ["JWT", "jwt", "application/jwt"] {
            let token = try keys.signIDToken(header: ["alg": "RS256", "typ": typ, "kid": try keys.currentKID], payload: payload)
            #expect(throws: Never.self, "\(typ)") { _ = try KakaoIDTokenVerifier.parse(token) }
        }
        let untyped = try keys.signIDToken(header: ["alg": "RS256", "kid": try keys.currentKID], payload: payload)
        #expect(throws: Never.self) { _ = try KakaoIDTokenVerifier.parse(untyped) }
    }

    // MARK: A SET's jti outlives the age at which the SET is accepted

    @Test func aJTIIsRememberedLongerThanASETIsAccepted() async throws {
        for maxAge in [86_400, 7 * 86_400, 30 * 86_400] {
            try await RouterWorld.with(SecurityEventRuleTests.options { $0.kakao.events.maxAgeSeconds = maxAge }) { world async throws in
                let events = try #require(world.features()?.securityEvents)
                #expect(events.jtiLifetimeSeconds >= Int64(maxAge) + events.verifier.rules.clockSkewSeconds + 86_400)
                #expect(events.jtiLifetimeSeconds >= SecurityEvents.minimumJTILifetimeSeconds)
            }
        }
    }

    // MARK: A deadline that gives up without waiting

    @Test func withDeadlineGivesUpAtItsLimitWhateverTheWorkDoes() async throws {
        final class Flag: Sendable { let raised = Atomic<Bool>(false) }
        let workEnded = Flag()
        await #expect(throws: DeadlinePassed.self) {
            try await withDeadline(.milliseconds(200)) { () async throws -> Int in
                // Work that ignores cancellation, as a query to a stopped database does.
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().asyncAfter(deadline: .now() + 10) { continuation.resume() }
                }
                workEnded.raised.store(true, ordering: .relaxed)
                return 1
            }
        }
        // Judged by the work's own state rather than a wall clock, which parallel tests on two cores make unreliable.
        let ended = workEnded.raised.load(ordering: .relaxed)
        #expect(!ended, "the caller waited for the work")
        #expect(try await withDeadline(.seconds(5)) { 42 } == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await withDeadline(.seconds(5)) { () async throws -> Int in throw Refused() } }
    }
}
