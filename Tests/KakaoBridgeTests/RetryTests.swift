import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Retries only where they are safe: Kakao's idempotent GETs on outages and connection errors, at most twice, inside the
/// deadline; never on a verdict about the token, and never for Identity Toolkit or the backend.
@Suite struct RetryTests {
    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        FaultKakaoTests.expectProblem(reply, status, code, comment, sourceLocation: sourceLocation)
    }

    static func uncached(_ change: @escaping @Sendable (inout TestWorld.Options) -> Void = { _ in }) -> TestWorld.Options {
        var options = TestWorld.Options()
        options.configure = {
            $0.kakao.cacheSeconds = 0
            $0.rateLimit.perClientPerMinute = 0
        }
        change(&options)
        return options
    }

    @Test func kakaoRetriesOnlyOutages() async throws {
        try await TestWorld.with(Self.uncached()) { world in
            let token = world.validToken()
            // Transient outages clear after one answer: the retry gets the real answer.
            let transient: [KakaoFault] = [
                .errorCode(-1, httpStatus: 500), .errorCode(-7, httpStatus: 400),
                .httpStatus(503, body: "<html>busy</html>"), .httpStatus(500, body: "{}"),
            ]
            for fault in transient {
                world.kakao.resetCounters()
                world.kakao.setFault(fault, endpoint: .tokenInfo, times: 1)
                let reply = try await world.exchange(token)
                #expect(reply.status == 200, "\(fault): \(reply.text)")
                #expect(world.kakao.tokenInfoCalls == 2, "\(fault)")
                #expect(world.kakao.userMeCalls == 1, "\(fault)")
            }

            // A lasting outage: the first call and two retries, then the problem.
            world.kakao.resetCounters()
            world.kakao.setFault(.errorCode(-1, httpStatus: 500), endpoint: .tokenInfo)
            Self.expectProblem(try await world.exchange(token), 502, "kakao_unavailable")
            #expect(world.kakao.tokenInfoCalls == 3)

            // Verdicts on the token, quota, maintenance, other codes, 4xx and unreadable answers: asked once.
            let final: [KakaoFault] = [
                .errorCode(-401, httpStatus: 401), .errorCode(-2, httpStatus: 400), .errorCode(-10, httpStatus: 429),
                .errorCode(-9798, httpStatus: 400), .errorCode(-3, httpStatus: 403), .httpStatus(400, body: "{}"),
                .httpStatus(404, body: "not found"), .rawBody("{broken", contentType: "application/json"),
            ]
            for fault in final {
                world.kakao.resetCounters()
                world.kakao.setFault(fault, endpoint: .tokenInfo)
                let reply = try await world.exchange(token)
                #expect(reply.status >= 400 && reply.isProblem, "\(fault): \(reply.text)")
                #expect(world.kakao.tokenInfoCalls == 1, "\(fault)")
            }
            world.kakao.setFault(nil)
            world.kakao.resetCounters()
            Self.expectProblem(try await world.exchange("no-such-token"), 401, "invalid_kakao_token")
            #expect(world.kakao.tokenInfoCalls == 1)
        }
    }

    @Test func connectionErrorsAreRetried() async throws {
        let script = CannedKakao.script { path, count in path == CannedKakao.tokenInfoPath && count == 1 ? .resetMidBody : nil }
        try await FaultKakaoTests.withFaultyKakao(script) { world, server in
            let reply = try await world.exchange("sometoken")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(server.calls(CannedKakao.tokenInfoPath) == 2)

            server.play(CannedKakao.script { path, count in path == CannedKakao.userMePath && count <= 2 ? .hangUp : nil })
            let again = try await world.exchange("sometoken")
            #expect(again.status == 200, "\(again.text)")
            #expect(server.calls(CannedKakao.userMePath) == 3)
        }
        // Slow 503s: the retries give up at the deadline rather than run past it.
        try await FaultKakaoTests.withFaultyKakao(timeoutMS: 600, { _, _ in
            Thread.sleep(forTimeInterval: 0.25)
            return .json(503, "{}")
        }) { world, server in
            let started = ContinuousClock.now
            let reply = try await world.exchange("sometoken")
            let elapsed = ContinuousClock.now - started
            #expect([502, 504].contains(reply.status) && reply.isProblem, "\(reply.text)")
            #expect(elapsed < TestTiming.budget(.milliseconds(1200)), "took \(elapsed)")
            #expect(server.calls(CannedKakao.tokenInfoPath) <= 3)
        }
    }

    @Test func identityToolkitAndBackendAreNeverRetried() async throws {
        try await TestWorld.with(Self.uncached { $0.backend = true }) { world in
            world.identityToolkit.setFault(.httpStatus(503, body: #"{"error":{"code":503,"message":"UNAVAILABLE"}}"#), times: 1)
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_unavailable")
            #expect(world.identityToolkit.exchangeCalls == 1)
            world.identityToolkit.resetCounters()
            world.identityToolkit.setFault(.httpStatus(400, body: #"{"error":{"code":400,"message":"INVALID_CUSTOM_TOKEN"}}"#), times: 1)
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_rejected")
            #expect(world.identityToolkit.exchangeCalls == 1)

            world.backend.setFault(.httpStatus(503, body: #"{"meta":{"code":503}}"#), times: 1)
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "backend_rejected")
            #expect(world.backend.calls == 1)
            world.backend.resetCounters()
            world.backend.setFault(.httpStatus(409, body: #"{"meta":{"code":409}}"#), times: 1)
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "backend_rejected")
            #expect(world.backend.calls == 1)
        }
    }
}
