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

/// `upstream.max_in_flight`: past the bound, requests fail fast with the upstream's `…_unavailable` problem instead of
/// queueing, and the service recovers by itself once the upstream does.
@Suite struct BackPressureTests {
    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        ErrorMappingTests.expectProblem(reply, status, code, sourceLocation: sourceLocation)
    }

    @Test func kakaoInFlightBoundFailsFastAndRecovers() async throws {
        var options = TestWorld.Options()
        options.configure = {
            $0.upstream.maxInFlight = 2
            $0.upstream.timeoutMS = 5000
            $0.kakao.cacheSeconds = 0
            $0.rateLimit.perClientPerMinute = 0
        }
        try await TestWorld.with(options) { world in
            // Shed requests must come back long before the slow one could: that is what "fail fast" means here.
            world.kakao.setFault(.delay(.seconds(2)))
            // One verification holds both slots (token info and profile run at once).
            let slow = Task { try await world.exchange(world.validToken()) }
            for _ in 0..<200 where world.kakao.peakConcurrentCalls < 2 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(world.kakao.peakConcurrentCalls == 2)

            let started = ContinuousClock.now
            let shed = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<8 { group.addTask { try await world.exchange(world.validToken()) } }
                return try await group.reduce(into: [Reply]()) { $0.append($1) }
            }
            let elapsed = ContinuousClock.now - started
            for reply in shed { Self.expectProblem(reply, 502, "kakao_unavailable") }
            #expect(elapsed < TestTiming.budget(.milliseconds(1000)), "shedding took \(elapsed)")
            #expect(world.kakao.peakConcurrentCalls <= 2)

            #expect(try await slow.value.status == 200)
            world.kakao.setFault(nil)
            let recovered = try await world.exchange(world.validToken())
            #expect(recovered.status == 200, "\(recovered.text)")
        }
    }

    @Test func identityToolkitBoundFailsFastWithItsOwnProblem() async throws {
        var options = TestWorld.Options()
        options.firebase = true
        options.configure = {
            $0.upstream.maxInFlight = 2
            $0.kakao.cacheSeconds = 0
            $0.rateLimit.perClientPerMinute = 0
        }
        try await TestWorld.with(options) { world in
            world.identityToolkit.setFault(.delay(.milliseconds(800)), times: 2)
            let first = Task { try await world.exchange(world.validToken()) }
            for _ in 0..<200 where world.identityToolkit.exchangeCalls < 1 { try await Task.sleep(for: .milliseconds(5)) }
            let second = Task { try await world.exchange(world.validToken()) }
            for _ in 0..<200 where world.identityToolkit.exchangeCalls < 2 { try await Task.sleep(for: .milliseconds(5)) }
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_unavailable")
            #expect(world.identityToolkit.exchangeCalls == 2)
            #expect(try await first.value.status == 200)
            #expect(try await second.value.status == 200)
            #expect(try await world.exchange(world.validToken()).status == 200)
        }
    }
}
