import BridgeSupport
import Foundation
@testable import BridgeFeatures
import OpenSSLCrypto
import StateStore
import Testing
import Upstreams
import BridgeTestSupport

/// The nonces of `GET /v1/kakao/nonce` and the memory of used ones (docs/api.md#get-v1kakaononce), as units.
@Suite struct KakaoNonceTests {
    static let secret = Array("0123456789abcdef0123456789abcdef".utf8)

    @Test func aNonceChecksUntilItExpires() throws {
        let clock = ManualUnixClock()
        let nonces = KakaoNonces(secret: Self.secret, clock: clock.clock)
        let (nonce, expiresIn) = nonces.issue()
        #expect(expiresIn == 600)
        #expect(Base64URL.decode(nonce) != nil)
        let ticket = try nonces.check(nonce)
        #expect(ticket.expiresAt == clock.clock.now() + 600)
        clock.advance(599)
        _ = try nonces.check(nonce)
        clock.advance(1)
        let error = try #require(throws: Problem.self) { try nonces.check(nonce) }
        #expect(error.code == .invalidKakaoIDToken)
        #expect(error.detail.contains("expired"))
    }

    @Test func everyBitIsCovered() throws {
        let nonces = KakaoNonces(secret: Self.secret, clock: .system)
        let bytes = Base64URL.decode(nonces.issue().nonce)!
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x40
            let error = try #require(throws: Problem.self) { try nonces.check(Base64URL.encode(changed)) }
            #expect(error.detail.contains("not issued by this service") || error.detail.contains("expired"))
        }
        #expect(throws: Problem.self) { try nonces.check(Base64URL.encode(Array(bytes.dropLast()))) }
        #expect(throws: Problem.self) { try nonces.check("") }
        #expect(throws: Problem.self) { try KakaoNonces(secret: Array(repeating: 1, count: 32), clock: .system).check(Base64URL.encode(bytes)) }
    }

    @Test func theMemoryTakesEachNonceOnce() async throws {
        let clock = ManualUnixClock()
        let nonces = KakaoNonces(secret: Self.secret, clock: clock.clock)
        let store = MemoryStateStore(clock: clock.clock)
        let memory = UsedKakaoNonces(store: store, health: StoreHealth())
        let first = try nonces.check(nonces.issue().nonce)
        let second = try nonces.check(nonces.issue().nonce)
        #expect(try await memory.use(first) == .first)
        #expect(try await memory.use(first) == .replayed)
        #expect(try await memory.use(second) == .first)
        // Forgotten once expired (the store's sweep): by then the nonce itself no longer checks.
        clock.advance(601)
        #expect(try await store.deleteExpired(now: clock.now) == 2)
        let third = try nonces.check(nonces.issue().nonce)
        #expect(try await memory.use(third) == .first)
    }

    /// The store's ids are the nonce's 16 random bytes, in order.
    @Test func aNonceIsKeptByItsRandomBytes() throws {
        let nonces = KakaoNonces(secret: Self.secret, clock: .system)
        let nonce = nonces.issue().nonce
        let ticket = try nonces.check(nonce)
        let raw = try #require(Base64URL.decode(nonce))
        #expect(ticket.id.bytes == Array(raw[9..<25]))
    }
    @Test func idTokensAreToldApartByShape() {
        #expect(KakaoCredentialKind(bearer: "a.b.c") == .idToken)
        #expect(KakaoCredentialKind(bearer: "abc") == .accessToken)
        #expect(KakaoCredentialKind(bearer: "a.b") == .accessToken)
        #expect(KakaoCredentialKind(bearer: "a.b.c.d") == .accessToken)
    }

    @Test func subjectsAreExactKakaoIDs() {
        #expect(KakaoIDTokenClaimRules.kakaoID("1") == 1)
        #expect(KakaoIDTokenClaimRules.kakaoID("9223372036854775807") == Int64.max)
        for bad in ["", "0", "01", "-1", "+1", "1 ", "9223372036854775808", "1e3", "١٢"] {
            #expect(KakaoIDTokenClaimRules.kakaoID(bad) == nil, "\(bad)")
        }
    }
}
