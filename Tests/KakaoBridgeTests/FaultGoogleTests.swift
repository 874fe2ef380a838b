import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Identity Toolkit and the certificate endpoint misbehaving: `firebase_unavailable`, `firebase_rejected` or
/// `upstream_timeout`, always as problem bodies.
@Suite struct FaultGoogleTests {
    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        FaultKakaoTests.expectProblem(reply, status, code, comment, sourceLocation: sourceLocation)
    }

    @Test func identityToolkitSocketFaults() async throws {
        let server = try FaultServer { _, _ in .hangUp }
        defer { server.stop() }
        var options = TestWorld.Options()
        options.firebase = true
        options.configure = {
            $0.firebase.identityToolkitURL = server.baseURL
            $0.upstream.timeoutMS = 1000
            $0.rateLimit.perClientPerMinute = 0
            // The Admin API shares Identity Toolkit's base URL; only the sign-in's calls are counted here.
            $0.firebase.userSync = .off
        }
        try await TestWorld.with(options) { world in
            let token = world.validToken()
            for fault in FaultKakaoTests.SocketFault.allCases {
                server.play { _, _ in fault.action }
                Self.expectProblem(try await world.exchange(token), 502, "firebase_unavailable", "\(fault)")
                #expect(server.totalCalls == 1, "\(fault): never retried")
            }
            server.play { _, _ in .redirect(location: "http://127.0.0.1:9/") }
            Self.expectProblem(try await world.exchange(token), 502, "firebase_unavailable", "redirect")
            #expect(server.totalCalls == 1)

            server.play { _, _ in .trickle(interval: .milliseconds(100)) }
            let started = ContinuousClock.now
            Self.expectProblem(try await world.exchange(token), 504, "upstream_timeout", "trickle")
            #expect(ContinuousClock.now - started < TestTiming.budget(.milliseconds(2500)))
        }
    }

    @Test func identityToolkitAnswers() async throws {
        var options = TestWorld.Options()
        options.firebase = true
        options.configure = { $0.rateLimit.perClientPerMinute = 0 }
        try await TestWorld.with(options) { world in
            let token = world.validToken()
            // 4xx: rejected, with Google's code in the detail, asked once.
            let rejections = [
                (400, #"{"error":{"code":400,"message":"INVALID_CUSTOM_TOKEN : The custom token format is incorrect."}}"#, "INVALID_CUSTOM_TOKEN"),
                (400, #"{"error":{"code":400,"message":"CREDENTIAL_MISMATCH"}}"#, "CREDENTIAL_MISMATCH"),
                (403, #"{"error":{"code":403,"message":"PERMISSION_DENIED"}}"#, "PERMISSION_DENIED"),
                (429, "<html>too many</html>", "no error message"),
            ]
            for (status, body, code) in rejections {
                world.identityToolkit.resetCounters()
                world.identityToolkit.setFault(.httpStatus(status, body: body))
                let reply = try await world.exchange(token)
                Self.expectProblem(reply, 502, "firebase_rejected", code)
                #expect(reply.json?["detail"]?.stringValue?.contains(code) == true, "\(reply.text)")
                #expect(world.identityToolkit.exchangeCalls == 1)
            }
            world.identityToolkit.setFault(.httpStatus(500, body: "{}"))
            Self.expectProblem(try await world.exchange(token), 502, "firebase_unavailable", "500")

            // 2xx that cannot be used.
            let unreadable = [
                #"{"idToken":"x","refreshToken":"y","expiresIn":"soon"}"#,
                #"{"idToken":"x","refreshToken":"y","expiresIn":3600}"#,
                #"{"idToken":"","refreshToken":"y","expiresIn":"3600"}"#,
                #"{"refreshToken":"y","expiresIn":"3600"}"#,
                #"{"idToken":"x","refreshToken":"y","expiresIn":"-1"}"#,
                #"{"idToken":"x","refreshToken":"y","expiresIn":"99999999999999999999"}"#,
                "[]",
            ]
            for body in unreadable {
                world.identityToolkit.setFault(.rawBody(body, contentType: "application/json"))
                Self.expectProblem(try await world.exchange(token), 502, "firebase_unavailable", body)
            }
            world.identityToolkit.setFault(nil)
            #expect(try await world.exchange(token).status == 200)
        }
    }

    @Test func identityToolkitUnreachable() async throws {
        var options = TestWorld.Options()
        options.firebase = true
        options.configure = { $0.firebase.identityToolkitURL = "http://127.0.0.1:9" }
        try await TestWorld.with(options) { world in
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_unavailable")
        }
    }

    // MARK: The certificate endpoint, through the hook

    /// A hook call whose ID token is well-formed, so that the verifier has to fetch certificates.
    static func hookCall(_ world: TestWorld) async throws -> Reply {
        let token = world.validToken()
        let now = Int64(Date().timeIntervalSince1970)
        let idToken = try world.keys.signIDToken(
            payload: SecureTokenKeys.idTokenPayload(projectID: world.account.projectID, uid: "kakao:1234567890", now: now)
        )
        return try await world.post(
            "/v1/login-complete", headers: [("Authorization", "Bearer " + TestWorld.hookSecret)],
            body: #"{"kakao_token":"\#(token)","token":"\#(idToken)"}"#
        )
    }

    @Test func certificateEndpointFaults() async throws {
        let server = try FaultServer { _, _ in .hangUp }
        defer { server.stop() }
        var options = TestWorld.Options()
        options.hook = true
        options.configure = {
            $0.firebase.securetokenCertsURL = server.baseURL + CertificatesStandIn.path
            $0.upstream.timeoutMS = 1000
            $0.rateLimit.perClientPerMinute = 0
        }
        try await TestWorld.with(options) { world in
            let actions = FaultKakaoTests.SocketFault.allCases.map { ("\($0)", $0.action) }
                + [("redirect", FaultServer.Action.redirect(location: "http://127.0.0.1:9/")),
                   ("trickle", .trickle(interval: .milliseconds(100))), ("503", .json(503, "{}")), ("empty", .json(200, "{}"))]
            for (name, action) in actions {
                server.play { _, _ in action }
                let reply = try await Self.hookCall(world)
                #expect([502, 504].contains(reply.status) && reply.isProblem, "\(name): \(reply.text)")
                #expect(["firebase_unavailable", "upstream_timeout"].contains(reply.code ?? ""), "\(name): \(reply.text)")
            }
            let ready = try await world.get("/readyz")
            #expect(ready.status == 503 && ready.isProblem, "\(ready.text)")
        }
    }

    /// Found by `FuzzGoogleReplies`: a `Cache-Control` directive that is only `=` made `SecureTokenCertificates.maxAge`
    /// index an empty split and crash the whole process, at start-up already (the certificates are prefetched).
    @Test func oddCacheControlDoesNotCrash() async throws {
        let keys = try SecureTokenKeys()
        let body = JSONValue.object(keys.certificatesJSON().mapValues { .string($0) }).serialized
        let server = try FaultServer { _, _ in .raw([]) }
        defer { server.stop() }
        var options = TestWorld.Options()
        options.hook = true
        options.configure = { $0.firebase.securetokenCertsURL = server.baseURL + CertificatesStandIn.path }
        try await TestWorld.with(options) { world in
            for cacheControl in ["=", "max-age, =", ",,=,", "max-age=\"\"", "max-age=-1", "max-age=99999999999999999999"] {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: \(cacheControl)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                server.play { _, _ in .raw(Array(head.utf8) + body) }
                let reply = try await Self.hookCall(world)
                #expect(reply.status != 500, "\(cacheControl): \(reply.text)")
            }
            #expect(try await world.get("/healthz").status == 200)
        }
    }

    @Test func cachedCertificatesOutliveAnOutage() async throws {
        var options = TestWorld.Options()
        options.hook = true
        try await TestWorld.with(options) { world in
            for _ in 0..<100 {
                if try await world.get("/readyz").status == 200 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            world.certificates.setFailing(true)
            let reply = try await Self.hookCall(world)
            #expect(reply.status == 200, "\(reply.text)")
        }
    }
}
