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

/// The app's backend misbehaving (step 6): non-2xx is `backend_rejected` with its answer in `login`; no answer is
/// `backend_unavailable`; too slow is `upstream_timeout`. Never retried.
@Suite struct FaultBackendTests {
    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        FaultKakaoTests.expectProblem(reply, status, code, comment, sourceLocation: sourceLocation)
    }

    @Test func nonSuccessIsRejectedWithTheBackendsAnswer() async throws {
        var options = TestWorld.Options()
        options.backend = true
        options.configure = {
            $0.upstream.timeoutMS = 600
            $0.rateLimit.perClientPerMinute = 0
        }
        try await TestWorld.with(options) { world in
            let answers = [
                (400, #"{"meta":{"code":400,"msg":"bad"}}"#), (401, #"{"meta":{"code":401}}"#), (409, "conflict"),
                (500, #"{"meta":{"code":500}}"#), (503, "<html>down</html>"),
            ]
            for (status, body) in answers {
                world.backend.resetCounters()
                world.backend.setFault(.httpStatus(status, body: body))
                let reply = try await world.exchange(world.validToken())
                Self.expectProblem(reply, 502, "backend_rejected", "\(status)")
                #expect(reply.json?["login"]?["status"]?.int64Value == Int64(status), "\(reply.text)")
                if body.hasPrefix("{") {
                    #expect(reply.json?["login"]?["body"]?["meta"]?["code"]?.int64Value == Int64(status), "\(reply.text)")
                } else {
                    #expect(reply.json?["login"]?["body"]?.stringValue == body, "\(reply.text)")
                }
                #expect(world.backend.calls == 1)
            }
            world.backend.setFault(.delay(.seconds(2)))
            Self.expectProblem(try await world.exchange(world.validToken()), 504, "upstream_timeout", "delay")
            world.backend.setFault(nil)
            #expect(try await world.exchange(world.validToken()).status == 200)
        }
    }

    @Test func socketFaults() async throws {
        let server = try FaultServer { _, _ in .hangUp }
        defer { server.stop() }
        var options = TestWorld.Options()
        options.backend = true
        options.configure = {
            $0.backend.loginCompleteURL = server.baseURL + "/login-complete"
            $0.upstream.timeoutMS = 1000
            $0.rateLimit.perClientPerMinute = 0
        }
        try await TestWorld.with(options) { world in
            for fault in [FaultKakaoTests.SocketFault.resetMidBody, .truncated, .hangUp, .floodWithLength, .floodChunked] {
                server.play { _, _ in fault.action }
                Self.expectProblem(try await world.exchange(world.validToken()), 502, "backend_unavailable", "\(fault)")
                #expect(server.totalCalls == 1, "\(fault): never retried")
            }
            // A 200 that is not JSON is still the backend's answer: passed on as text, not invented into JSON.
            for fault in [FaultKakaoTests.SocketFault.htmlPage, .invalidUTF8, .notJSON] {
                server.play { _, _ in fault.action }
                let reply = try await world.exchange(world.validToken())
                #expect(reply.status == 200, "\(fault): \(reply.text)")
                #expect(reply.json?["login"]?["status"]?.int64Value == 200)
                #expect(reply.json?["login"]?["body"] != nil, "\(reply.text)")
            }
            server.play { _, _ in .redirect(location: "http://127.0.0.1:9/") }
            let redirected = try await world.exchange(world.validToken())
            Self.expectProblem(redirected, 502, "backend_rejected", "redirect")
            #expect(redirected.json?["login"]?["status"]?.int64Value == 302)
            #expect(server.totalCalls == 1)

            server.play { _, _ in .trickle(interval: .milliseconds(100)) }
            let started = ContinuousClock.now
            Self.expectProblem(try await world.exchange(world.validToken()), 504, "upstream_timeout", "trickle")
            #expect(ContinuousClock.now - started < TestTiming.budget(.milliseconds(2500)))
        }
    }

    @Test func unreachable() async throws {
        var options = TestWorld.Options()
        options.backend = true
        options.configure = { $0.backend.loginCompleteURL = "http://127.0.0.1:9/login-complete" }
        try await TestWorld.with(options) { world in
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "backend_unavailable")
        }
    }
}
