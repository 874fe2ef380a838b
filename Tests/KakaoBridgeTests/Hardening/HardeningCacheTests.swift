import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns
import Synchronization
import Testing
import Upstreams
import BridgeTestSupport

/// Second hardening round, the caches: stale-while-revalidate certificates with a limit, verifications that survive
/// their first caller, and a reload that gives up at once on shutdown.
@Suite struct HardeningCacheTests {
    /// A key source whose fetches can be held back or made to fail.
    final class SlowKeys: PublicKeySetFetching {
        let keys: SecureTokenKeys
        let gate = Mutex<Duration>(.zero)
        let failing = Atomic<Bool>(false)
        let fetches = Atomic<Int>(0)

        init() throws { keys = try SecureTokenKeys() }

        func fetchKeys(context: CallContext) async throws(Problem) -> PublicKeySet {
            fetches.add(1, ordering: .relaxed)
            let pause = gate.withLock { $0 }
            if pause > .zero { try? await Task.sleep(for: pause) }
            if failing.load(ordering: .relaxed) { throw Problem.firebaseUnavailable("down") }
            var map: [String: RSAPublicKey] = [:]
            for key in keys.publishedKeys { map[key.kid] = key.privateKey.publicKey }
            return PublicKeySet(keys: map, maxAge: 100)
        }
    }

    /// Google's certificates from `SlowKeys`, on a clock the test moves.
    static func certificatesOnAManualClock() throws -> (SlowKeys, ManualUnixClock, PublicKeyCache) {
        let source = try SlowKeys()
        let clock = ManualUnixClock()
        return (source, clock, PublicKeyCache.googleCertificates(source, clock: clock.clock))
    }

    @Test func aKnownKidNeverWaitsForARefetch() async throws {
        let (source, clock, cache) = try Self.certificatesOnAManualClock()
        let context = CallContext(requestID: "t")
        let kid = source.keys.currentKID
        #expect(try await cache.key(for: kid, context: context) != nil)
        clock.advance(101)
        source.gate.withLock { $0 = .seconds(3) }
        let started = ContinuousClock.now
        #expect(try await cache.key(for: kid, context: context) != nil)
        #expect(ContinuousClock.now - started < .seconds(2), "a request waited for the 3 s refetch")
        // The refetch runs in the background (it starts a moment later; on a loaded machine that moment can be long).
        var refetching = false
        for _ in 0..<300 where !refetching {
            refetching = source.fetches.load(ordering: .relaxed) == 2
            if !refetching { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(refetching)
    }

    @Test func staleKeysServeWhileRefetchesFailButNotBeyondADay() async throws {
        let (source, clock, cache) = try Self.certificatesOnAManualClock()
        let context = CallContext(requestID: "t")
        let kid = source.keys.currentKID
        #expect(try await cache.key(for: kid, context: context) != nil)
        source.failing.store(true, ordering: .relaxed)
        clock.advance(100 + 3600)
        #expect(try await cache.key(for: kid, context: context) != nil)
        clock.advance(86_400)
        do {
            _ = try await cache.key(for: kid, context: context)
            Issue.record("keys a day past their max-age still served")
        } catch {
            #expect(error.code == .firebaseUnavailable)
        }
    }

    /// A Kakao verifier that takes a while and gives up when its task is cancelled, as the real client does.
    final class SlowKakao: KakaoVerifying {
        let calls = Atomic<Int>(0)

        func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken {
            calls.add(1, ordering: .relaxed)
            do {
                try await Task.sleep(for: .milliseconds(300))
            } catch {
                throw Problem.upstreamTimeout("Kakao")
            }
            return VerifiedKakaoToken(user: KakaoUser(id: 7), expiresIn: 3600)
        }
    }

    @Test func aSharedVerificationSurvivesItsFirstCallerGoingAway() async throws {
        let kakao = SlowKakao()
        let cache = KakaoVerificationCache(wrapping: kakao, ttlSeconds: 60)
        let context = CallContext(requestID: "t")
        let first = Task { try await cache.verify(accessToken: "tok", context: context) }
        try await Task.sleep(for: .milliseconds(50))
        let second = Task { try await cache.verify(accessToken: "tok", context: context) }
        try await Task.sleep(for: .milliseconds(50))
        first.cancel()
        let user = try await second.value
        #expect(user.id == 7)
        #expect(kakao.calls.load(ordering: .relaxed) == 1)
    }

    @Test func aReloadWaitingForKeysGivesUpAtOnceWhenCancelled() async throws {
        let waiting = Task { await unlessCancelled { try? await Task.sleep(for: .seconds(5)); return true } }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(ContinuousClock.now - started < .seconds(2), "waited for the 5 s work")
    }
}

/// A Kakao ID token's verification runs in its first caller's task (`Shielding.callersTask`): the callers that joined it
/// must still get their answer when that caller goes away while Kakao's JWKS is being fetched.
@Suite struct IDTokenVerificationShieldingTests {
    /// Kakao's JWKS, published after a pause.
    final class SlowJWKS: PublicKeySetFetching {
        let keys = KakaoOIDCKeys()
        let fetches = Atomic<Int>(0)

        func fetchKeys(context: CallContext) async throws(Problem) -> PublicKeySet {
            fetches.add(1, ordering: .relaxed)
            // `try?`: a cancelled fetch would end its pause early and still publish; the test proves none is cancelled.
            try? await Task.sleep(for: .milliseconds(300))
            guard !Task.isCancelled else { throw Problem.kakaoUnavailable("the JWKS fetch was cancelled") }
            var map: [String: RSAPublicKey] = [:]
            for key in (try? keys.publishedKeys) ?? [] { map[key.kid] = key.privateKey.publicKey }
            return PublicKeySet(keys: map, maxAge: 3600)
        }
    }

    @Test func aJoinedIDTokenVerificationSurvivesItsFirstCallerGoingAway() async throws {
        let jwks = SlowJWKS()
        let clock = ManualUnixClock()
        let verifier = KakaoIDTokenVerifier(
            rules: KakaoIDTokenClaimRules(audiences: ["app-key"], clockSkewSeconds: 0, clock: clock.clock),
            keys: PublicKeyCache.kakaoKeys(jwks, clock: clock.clock)
        )
        let user = StandIns.KakaoAccount(id: 42, nickname: "Ryan", email: nil, profileImageURL: nil)
        let token = try jwks.keys.signIDToken(
            payload: KakaoOIDCKeys.idTokenPayload(for: user, audience: "app-key", nonce: nil, now: clock.now - 5)
        )
        let cache = KakaoVerificationCache(wrapping: HardeningCacheTests.SlowKakao(), ttlSeconds: 60)
        let verify = { @Sendable () async throws(Problem) -> VerifiedKakaoToken in
            let claims = try await verifier.verify(parsed: try KakaoIDTokenVerifier.parse(token), context: CallContext(requestID: "t"))
            return VerifiedKakaoToken(user: claims.user, expiresIn: nil)
        }
        let first = Task { try await cache.verifyReportingLifetime(token: token, kind: .idToken, shielding: .callersTask, verifiedBy: verify) }
        try await Task.sleep(for: .milliseconds(50))
        let second = Task { try await cache.verifyReportingLifetime(token: token, kind: .idToken, shielding: .callersTask, verifiedBy: verify) }
        try await Task.sleep(for: .milliseconds(50))
        first.cancel()
        #expect(try await second.value.user.id == 42)
        #expect(try await first.value.user.id == 42)
        #expect(jwks.fetches.load(ordering: .relaxed) == 1)
    }
}
