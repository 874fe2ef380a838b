@testable import BridgeFeatures
import Testing
import Upstreams
import UpstreamFakes

/// The cache's packed entry gives back exactly the user it was made from: every field present or absent, empty text,
/// and text beyond ASCII (Kakao nicknames are mostly Korean).
@Suite struct CachedVerificationTests {
    static let users: [KakaoUser] = [
        KakaoUser(id: 1),
        KakaoUser(id: 2, nickname: "라이언", email: "ryan@example.com", emailVerified: true, profileImageURL: "https://k.kakaocdn.net/dn/p/img_640x640.jpg"),
        KakaoUser(id: 3, nickname: "", email: nil, emailVerified: false, profileImageURL: ""),
        KakaoUser(id: 4, nickname: nil, email: "only-email@example.com", emailVerified: nil, profileImageURL: nil),
        KakaoUser(id: Int64.max, nickname: "🦁 " + String(repeating: "가", count: 300), email: "a@b.c", emailVerified: true, profileImageURL: nil),
    ]

    @Test(arguments: users)
    func theUserComesBackUnchanged(_ user: KakaoUser) throws {
        let digest = TokenDigest("token of \(user.id)")
        let entry = try #require(
            CachedVerification.make(digest: digest, user: user, trustedUntil: 1_700_000_060, tokenExpiresAt: 1_700_003_600)
        )
        #expect(entry.user == user)
        #expect(entry.userID == user.id)
        #expect(entry.trustedUntil == 1_700_000_060)
        #expect(entry.tokenExpiresAt == 1_700_003_600)
        #expect(entry.digest == digest)
    }

    @Test func aTokenWithoutKakaosExpiryStaysWithout() throws {
        let entry = try #require(
            CachedVerification.make(digest: TokenDigest("t"), user: KakaoUser(id: 9), trustedUntil: 10, tokenExpiresAt: nil)
        )
        #expect(entry.tokenExpiresAt == nil)
    }

    /// Lengths are kept in 16 bits: a field of 64 KiB or more is not packed (the user is then verified every time).
    @Test func aUserWithAnOverlongFieldIsNotPacked() {
        let long = String(repeating: "a", count: 65_535)
        #expect(CachedVerification.make(digest: TokenDigest("t"), user: KakaoUser(id: 9, nickname: long), trustedUntil: 10, tokenExpiresAt: nil) == nil)
        let justBelow = KakaoUser(id: 9, email: String(repeating: "b", count: 65_534))
        #expect(CachedVerification.make(digest: TokenDigest("t"), user: justBelow, trustedUntil: 10, tokenExpiresAt: nil)?.user == justBelow)
    }

    @Test func droppingAUserLeavesTheOthersCached() async throws {
        let kakao = FakeKakao()
        let cache = KakaoVerificationCache(wrapping: kakao, ttlSeconds: 60)
        let context = CallContext(requestID: "t")
        let ryan = [kakao.issue(KakaoUser(id: 1, nickname: "Ryan")), kakao.issue(KakaoUser(id: 1, nickname: "Ryan"))]
        let apeach = kakao.issue(KakaoUser(id: 2, nickname: "Apeach"))
        for token in ryan + [apeach] { _ = try await cache.verify(accessToken: token, context: context) }
        #expect(cache.dropUser(1) == 2)
        #expect(cache.count == 1)
        _ = try await cache.verify(accessToken: apeach, context: context)
        #expect(kakao.calls == 3)
        _ = try await cache.verify(accessToken: ryan[0], context: context)
        #expect(kakao.calls == 4)
    }
}
