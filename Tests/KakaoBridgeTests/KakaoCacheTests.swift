import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Synchronization
import Testing
import Upstreams
import UpstreamFakes
import BridgeTestSupport
import EndToEndSupport

/// The verified-token cache (`kakao.cache_seconds`, issue 6) at the router's depth, against the fake Kakao's call counter
/// (one verification is one call of the fake, where the stand-in counts a token-info and a user/me request).
@Suite struct KakaoCacheTests {
    @Test func secondExchangeWithTheSameTokenDoesNotAskKakao() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            let reply1 = try await world.exchange(token)
            #expect(reply1.status == 200)
            #expect(world.kakao.calls == 1)
            let second = try await world.exchange(token)
            #expect(second.status == 200)
            #expect(second.json?["kakao"]?["email"]?.stringValue == "ryan@example.com")
            #expect(world.kakao.calls == 1)
        }
    }

    @Test func theHookRightAfterTheExchangeDoesNotAskKakaoAgain() async throws {
        try await RouterWorld.with(.init(backend: true)) { world in
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200)
            #expect(world.backend.lastHookStatus == 200)
            #expect(world.kakao.calls == 1)
        }
    }

    @Test func entriesExpireAfterCacheSeconds() async throws {
        let clock = ManualUnixClock()
        var options = RouterWorld.Options()
        options.clock = clock.clock
        options.configure = { $0.kakao.cacheSeconds = 60 }
        try await RouterWorld.with(options) { world in
            let token = world.validToken()
            let reply2 = try await world.exchange(token)
            #expect(reply2.status == 200)
            clock.advance(59)
            let reply3 = try await world.exchange(token)
            #expect(reply3.status == 200)
            #expect(world.kakao.calls == 1)
            clock.advance(2)
            let reply4 = try await world.exchange(token)
            #expect(reply4.status == 200)
            #expect(world.kakao.calls == 2)
        }
    }

    @Test func aTokenIsNeverTrustedPastKakaosOwnExpiry() async throws {
        let clock = ManualUnixClock()
        var options = RouterWorld.Options()
        options.clock = clock.clock
        try await RouterWorld.with(options) { world in
            let token = world.kakao.issue(KakaoUser(id: 77, nickname: "Short"), expiresIn: 10)
            let reply5 = try await world.exchange(token)
            #expect(reply5.status == 200)
            clock.advance(5)
            let reply6 = try await world.exchange(token)
            #expect(reply6.status == 200)
            #expect(world.kakao.calls == 1)
            clock.advance(6)
            _ = try await world.exchange(token)
            #expect(world.kakao.calls == 2)
        }
    }

    @Test func failuresAreNotCached() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            world.kakao.fail(with: .kakaoQuotaExceeded(), times: 1)
            let refused = try await world.exchange(token)
            #expect(refused.code == "kakao_quota_exceeded")
            let accepted = try await world.exchange(token)
            #expect(accepted.status == 200)
            #expect(world.kakao.calls == 2)

            let revoked = world.validToken(id: 5)
            world.kakao.expire(revoked)
            let reply7 = try await world.exchange(revoked)
            #expect(reply7.code == "invalid_kakao_token")
            let reply8 = try await world.exchange(revoked)
            #expect(reply8.code == "invalid_kakao_token")
            #expect(world.kakao.calls == 4)
        }
    }

    @Test func concurrentFirstVerificationsShareOneKakaoCall() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            world.kakao.delay(.milliseconds(300))
            let statuses = try await Self.exchangeConcurrently(world, token, times: 50)
            #expect(statuses == Array(repeating: 200, count: 50))
            #expect(world.kakao.calls == 1)
        }
    }

    @Test func concurrentVerificationsShareOneFailureToo() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            world.kakao.expire(token)
            world.kakao.delay(.milliseconds(300))
            let statuses = try await Self.exchangeConcurrently(world, token, times: 20)
            #expect(statuses == Array(repeating: 401, count: 20))
            #expect(world.kakao.calls == 1)
        }
    }

    @Test func cacheSecondsZeroAsksKakaoEveryTime() async throws {
        var options = RouterWorld.Options()
        options.configure = { $0.kakao.cacheSeconds = 0 }
        try await RouterWorld.with(options) { world in
            let token = world.validToken()
            for _ in 0..<3 {
                let reply = try await world.exchange(token)
                #expect(reply.status == 200)
            }
            #expect(world.kakao.calls == 3)
        }
    }

    @Test func theOldestEntryGoesFirstPastTheBound() async throws {
        let kakao = FakeKakao()
        let cache = KakaoVerificationCache(wrapping: kakao, ttlSeconds: 60, maxEntries: 2)
        let tokens = (1...3).map { kakao.issue(KakaoUser(id: Int64($0), nickname: "Ryan")) }
        for token in tokens { _ = try await cache.verify(accessToken: token, context: CallContext(requestID: "t")) }
        #expect(cache.count == 2)
        #expect(kakao.calls == 3)
        _ = try await cache.verify(accessToken: tokens[2], context: CallContext(requestID: "t"))
        #expect(kakao.calls == 3)
        let first = try await cache.verify(accessToken: tokens[0], context: CallContext(requestID: "t"))
        #expect(first.id == 1)
        #expect(kakao.calls == 4)
    }

    private static func exchangeConcurrently(_ world: RouterWorld, _ token: String, times: Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<times { group.addTask { try await world.exchange(token).status } }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
    }
}

