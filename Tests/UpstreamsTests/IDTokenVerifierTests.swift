import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import OpenSSLCrypto
import StandIns
import Synchronization
import Testing
import Upstreams
import BridgeTestSupport

/// The real certificate stand-in on loopback, a real `Upstream` to it, and the certificate cache under test.
final class IDTokenFixture: Sendable {
    static let projectID = "bridge-test-project"

    let keys: SecureTokenKeys
    let endpoint: CertificatesStandIn
    let server: StandInServer
    let http: CurlHTTPClient
    let clock: ManualUnixClock
    let certificates: PublicKeyCache

    private init(keys: SecureTokenKeys, endpoint: CertificatesStandIn, server: StandInServer, http: CurlHTTPClient, clock: ManualUnixClock) {
        self.keys = keys
        self.endpoint = endpoint
        self.server = server
        self.http = http
        self.clock = clock
        // Generous: under a loaded machine a loopback fetch has taken over 2 s; no test here waits for a timeout.
        let upstream = Upstream(.certificates, http: http, timeout: .seconds(10), maxInFlight: 8)
        self.certificates = .googleCertificates(
            GoogleCertificatesClient.live(upstream: upstream, url: CertificatesStandIn.url(on: server)), clock: clock.clock
        )
    }

    static func with(maxAge: Int = 3600, _ body: (IDTokenFixture) async throws -> Void) async throws {
        let keys = try SecureTokenKeys()
        let endpoint = CertificatesStandIn(keys: keys, maxAge: maxAge)
        let server = try await endpoint.start()
        let fixture = IDTokenFixture(keys: keys, endpoint: endpoint, server: server, http: CurlHTTPClient(), clock: ManualUnixClock())
        do {
            try await body(fixture)
        } catch {
            await fixture.stop()
            throw error
        }
        await fixture.stop()
    }

    func stop() async {
        http.shutdown()
        await server.stop()
    }

    func verifier(skew: Int = 0, tenantID: String? = nil) -> IDTokenVerifier {
        IDTokenVerifier(
            rules: IDTokenClaimRules(projectID: Self.projectID, tenantID: tenantID, clockSkewSeconds: skew, clock: clock.clock),
            certificates: certificates
        )
    }

    func payload(
        uid: String = "kakao:1234567890", tenantID: String? = nil, _ change: (inout [String: any Sendable]) -> Void = { _ in }
    ) -> [String: any Sendable] {
        var payload = SecureTokenKeys.idTokenPayload(projectID: Self.projectID, uid: uid, now: clock.now, tenantID: tenantID)
        change(&payload)
        return payload
    }

    func token(
        header: [String: any Sendable]? = nil, signing: IDTokenSigning = .current,
        _ change: (inout [String: any Sendable]) -> Void = { _ in }
    ) throws -> String {
        try keys.signIDToken(header: header, payload: payload(change), signing: signing)
    }

    var context: CallContext { CallContext(requestID: "test") }
}

/// Runs `verify` and returns the problem's detail, or records an issue when it did not fail with `invalid_id_token`.
func idTokenFailure(
    _ verifier: IDTokenVerifier, _ token: String, sourceLocation: SourceLocation = #_sourceLocation
) async -> String {
    do {
        _ = try await verifier.verify(token, context: CallContext(requestID: "test"))
        Issue.record("the token was accepted", sourceLocation: sourceLocation)
        return ""
    } catch {
        #expect(error.code == .invalidIDToken, "\(error)", sourceLocation: sourceLocation)
        return error.detail
    }
}

@Suite("Firebase ID token rules")
struct IDTokenVerifierTests {
    @Test func acceptsAValidTokenAndReturnsThePayloadAsSent() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token { $0["custom"] = "kept" }
            let verified = try await fixture.verifier().verify(token, context: fixture.context)
            #expect(verified.subject == "kakao:1234567890")
            #expect(verified.claims["custom"]?.stringValue == "kept")
            #expect(verified.claims["firebase"]?["sign_in_provider"]?.stringValue == "custom")
            #expect(fixture.certificates.isReady)
        }
    }

    @Test func refusesWhatIsNotAJWT() async throws {
        try await IDTokenFixture.with { fixture in
            let verifier = fixture.verifier()
            let valid = try fixture.token()
            let twoSegments = valid.split(separator: ".").prefix(2).joined(separator: ".")
            for garbage in [twoSegments, "garbage", "a.b.c.d", "", "!!!.???.***", valid + "."] {
                #expect(await idTokenFailure(verifier, garbage).contains("three base64url segments"))
            }
            #expect(fixture.endpoint.fetchCount == 0)
        }
    }

    @Test func refusesAlgNone() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token(signing: .none)
            #expect(await idTokenFailure(fixture.verifier(), token).contains("alg must be RS256"))
        }
    }

    @Test func refusesHS256KeyedWithTheCertificate() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token(signing: .hs256WithCertificate)
            #expect(await idTokenFailure(fixture.verifier(), token).contains("alg must be RS256"))
        }
    }

    @Test func refusesAMissingKid() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token(header: ["alg": "RS256", "typ": "JWT"])
            #expect(await idTokenFailure(fixture.verifier(), token).contains("no kid"))
        }
    }

    @Test func refusesAnUnknownKid() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token(header: ["alg": "RS256", "kid": "not-a-google-kid"], signing: .unpublishedKey)
            #expect(await idTokenFailure(fixture.verifier(), token).contains("kid names no current"))
        }
    }

    @Test func refusesABadSignature() async throws {
        try await IDTokenFixture.with { fixture in
            let verifier = fixture.verifier()
            let corrupted = try fixture.token(signing: .corruptedSignature)
            let unpublished = try fixture.token(signing: .unpublishedKey)
            #expect(await idTokenFailure(verifier, corrupted).contains("signature"))
            #expect(await idTokenFailure(verifier, unpublished).contains("signature"))
        }
    }

    @Test func refusesACustomTokenWithADetailThatSaysSo() async throws {
        try await IDTokenFixture.with { fixture in
            // Shaped like `CustomTokenMinter`'s output: the service account's own key and kid.
            let account = try RSAPrivateKey.generate(bits: 2048)
            let now = fixture.clock.now
            let payload: [String: any Sendable] = [
                "iss": "sa@bridge-test-project.iam.gserviceaccount.com", "sub": "sa@bridge-test-project.iam.gserviceaccount.com",
                "aud": CustomTokenMinter.audience, "iat": now, "exp": now + 3600, "uid": "kakao:1",
            ]
            let token = try fixture.keys.signIDToken(
                header: ["alg": "RS256", "typ": "JWT", "kid": "service-account-key-id"], payload: payload,
                signing: .privateKey(account)
            )
            let detail = await idTokenFailure(fixture.verifier(), token)
            #expect(detail.lowercased().contains("a firebase custom token was given where an id token is expected"))
            #expect(fixture.endpoint.fetchCount == 0)
        }
    }

    @Test func refusesAnotherAudience() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token { $0["aud"] = "another-project" }
            #expect(await idTokenFailure(fixture.verifier(), token).contains("aud"))
        }
    }

    @Test func refusesAnotherIssuer() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token { $0["iss"] = "https://securetoken.google.com/another-project" }
            #expect(await idTokenFailure(fixture.verifier(), token).contains("iss"))
        }
    }

    @Test func refusesBadSubjects() async throws {
        try await IDTokenFixture.with { fixture in
            let verifier = fixture.verifier()
            let subjects: [any Sendable] = ["", 1_234_567_890, String(repeating: "a", count: 129)]
            for subject in subjects {
                let token = try fixture.token { $0["sub"] = subject }
                #expect(await idTokenFailure(verifier, token).contains("sub must be a non-empty string of at most 128"))
            }
            let missing = try fixture.token { $0.removeValue(forKey: "sub") }
            #expect(await idTokenFailure(verifier, missing).contains("sub"))
            let longest = try fixture.token { $0["sub"] = String(repeating: "a", count: 128) }
            #expect(try await verifier.verify(longest, context: fixture.context).subject.count == 128)
        }
    }

    @Test func refusesATokenIssuedInTheFuture() async throws {
        try await IDTokenFixture.with { fixture in
            let now = fixture.clock.now
            let token = try fixture.token { $0["iat"] = now + 30 }
            #expect(await idTokenFailure(fixture.verifier(), token).contains("issued in the future"))
            _ = try await fixture.verifier(skew: 60).verify(token, context: fixture.context)
        }
    }

    @Test func refusesAnExpiredToken() async throws {
        try await IDTokenFixture.with { fixture in
            let now = fixture.clock.now
            let token = try fixture.token {
                $0["iat"] = now - 7200
                $0["auth_time"] = now - 7200
                $0["exp"] = now - 3600
            }
            #expect(await idTokenFailure(fixture.verifier(skew: 60), token).contains("expired"))
        }
    }

    @Test func expiryWithinTheSkewIsAcceptedOnlyWithThatSkew() async throws {
        try await IDTokenFixture.with { fixture in
            let token = try fixture.token()
            fixture.clock.advance(3600 + 30)
            #expect(await idTokenFailure(fixture.verifier(skew: 0), token).contains("expired"))
            _ = try await fixture.verifier(skew: 60).verify(token, context: fixture.context)
            // `exp` itself is already expired: it must be strictly in the future.
            fixture.clock.advance(-30)
            #expect(await idTokenFailure(fixture.verifier(skew: 0), token).contains("expired"))
        }
    }

    @Test func refusesAnAuthTimeInTheFuture() async throws {
        try await IDTokenFixture.with { fixture in
            let now = fixture.clock.now
            let token = try fixture.token { $0["auth_time"] = now + 120 }
            #expect(await idTokenFailure(fixture.verifier(skew: 60), token).contains("auth_time"))
            let withoutAuthTime = try fixture.token { $0.removeValue(forKey: "auth_time") }
            _ = try await fixture.verifier().verify(withoutAuthTime, context: fixture.context)
        }
    }

    @Test func requiresTheConfiguredTenant() async throws {
        try await IDTokenFixture.with { fixture in
            let verifier = fixture.verifier(tenantID: "tenant-a")
            let other = try fixture.keys.signIDToken(payload: fixture.payload(tenantID: "tenant-b"))
            #expect(await idTokenFailure(verifier, other).contains("firebase.tenant"))
            let none = try fixture.keys.signIDToken(payload: fixture.payload())
            #expect(await idTokenFailure(verifier, none).contains("firebase.tenant"))
            let same = try fixture.keys.signIDToken(payload: fixture.payload(tenantID: "tenant-a"))
            _ = try await verifier.verify(same, context: fixture.context)
        }
    }
}
