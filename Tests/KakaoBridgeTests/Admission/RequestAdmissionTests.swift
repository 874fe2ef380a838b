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

/// `RequestAdmission` on the real server: logins past the limit wait their turn and then succeed; nothing else waits, so
/// the backend's call to the hook during a login's step 6 cannot wait on that login.
@Suite struct RequestAdmissionTests {
    static func options(limit: Int, backend: Bool = false) -> TestWorld.Options {
        var options = TestWorld.Options()
        options.admissionLimit = limit
        options.backend = backend
        options.configure = {
            $0.kakao.cacheSeconds = 0
            $0.rateLimit.perClientPerMinute = 0
            $0.upstream.timeoutMS = 5000
        }
        return options
    }

    @Test func loginsPastTheLimitWaitAndAllSucceed() async throws {
        try await TestWorld.with(Self.options(limit: 1)) { world in
            // The first login holds the only place for a second (its two Kakao calls are slow); the three that arrive
            // meanwhile must wait, however slowly a loaded machine delivers them.
            world.kakao.setFault(.delay(.seconds(1)), times: 1)
            let first = Task { try await world.exchange(world.validToken()) }
            await AdmissionQueueTests.until { world.kakao.tokenInfoCalls >= 1 }
            let others = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<3 { group.addTask { try await world.exchange(world.validToken()) } }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            let replies = [try await first.value] + others
            #expect(replies.map(\.status) == [200, 200, 200, 200], "\(replies.map(\.text))")
            // One login at a time reached Kakao (its two calls run at once): the others waited at the door, not at Kakao.
            #expect(world.kakao.peakConcurrentCalls == 2)
            // The wait is part of the duration ops see, and named on its own.
            let queued = world.bridge.logs.lines.filter { $0.contains("\"queued_ms\"") }
            #expect(queued.count >= 1, "\(world.bridge.logs.lines.suffix(4))")
        }
    }

    @Test func theHookDuringAWaitingLoginsStepSixIsNotQueued() async throws {
        try await TestWorld.with(Self.options(limit: 1, backend: true)) { world in
            // Every login's step 6 makes the backend stand-in call the hook while that login holds the only place.
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<3 { group.addTask { try await world.exchange(world.validToken()) } }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            #expect(replies.map(\.status) == [200, 200, 200], "\(replies.map(\.text))")
            #expect(world.backend.lastHookStatus == 200)
        }
    }

    @Test func probesAndMetricsAnswerWhileLoginsHoldEveryPlace() async throws {
        try await TestWorld.with(Self.options(limit: 1)) { world in
            world.kakao.setFault(.delay(.seconds(2)))
            let slow = Task { try await world.exchange(world.validToken()) }
            let waiting = Task { try await world.exchange(world.validToken()) }
            await AdmissionQueueTests.until { world.kakao.peakConcurrentCalls == 2 }
            let started = ContinuousClock.now
            for path in ["/healthz", "/readyz", "/metrics"] {
                let reply = try await world.get(path)
                #expect(reply.status == 200, "\(path)")
            }
            // Long before the slow login (2 s) could have given its place up.
            #expect(ContinuousClock.now - started < TestTiming.budget(.milliseconds(1500)))
            #expect(try await slow.value.status == 200)
            #expect(try await waiting.value.status == 200)
        }
    }
}
