import BridgeJSON
import BridgeSupport
import Synchronization
@testable import BridgeFeatures
import Testing
import Upstreams
import UpstreamFakes

/// The small parts of the lifecycle, without a router: the webhook's form parser, the memory of unlinked users, the
/// custom-claims merge and the verification cache's index by Kakao id.
@Suite("Lifecycle parts")
struct LifecyclePartsTests {
    @Test func formFieldsDecodeAsBrowsersEncode() {
        let fields = FormCodec.parse("app_id=42&user_id=1234&referrer_type=UNLINK_FROM_APPS&note=a+b%20c%2B%E2%9C%93&empty=&flag")
        #expect(fields["app_id"] == "42")
        #expect(fields["user_id"] == "1234")
        #expect(fields["referrer_type"] == "UNLINK_FROM_APPS")
        #expect(fields["note"] == "a b c+✓")
        #expect(fields["empty"] == "")
        #expect(fields["flag"] == "")
    }

    @Test func aSecondValueNeverOverridesTheFirstAndBrokenEscapesAreDropped() {
        let fields = FormCodec.parse("user_id=1&user_id=2&bad=%zz&cut=%4&notutf8=%FF&u%73er=3")
        #expect(fields["user_id"] == "1")
        #expect(fields["bad"] == nil && fields["cut"] == nil && fields["notutf8"] == nil)
        #expect(FormCodec.parse("").isEmpty)
        #expect(FormCodec.parse("&&&").isEmpty)
    }

    @Test func unlinkedUsersAreRememberedForADayAndBoundedInNumber() {
        let now = Mutex<Int64>(1_000_000)
        let clock = UnixClock { now.withLock { $0 } }
        let memory = UnlinkedKakaoUsers(clock: clock, maxEntries: 3)
        memory.record(1)
        #expect(memory.unlinkedAt(1) == 1_000_000)
        #expect(memory.unlinkedAt(2) == nil)
        now.withLock { $0 += 100 }
        memory.record(1)
        #expect(memory.unlinkedAt(1) == 1_000_100, "a second unlink moves the time")
        for id in Int64(2)...4 { memory.record(id) }
        #expect(memory.unlinkedAt(1) == nil, "past the bound the oldest goes first")
        #expect(memory.unlinkedAt(4) != nil)
        now.withLock { $0 += UnlinkedKakaoUsers.rememberedSeconds }
        #expect(memory.unlinkedAt(4) == nil, "a day later it is forgotten")
    }

    @Test func customAttributesMergeWithoutLoss() throws {
        let attributes = try #require(CustomAttributes(#"{"role":"admin","plan":{"tier":2},"kakao_id":"7"}"#))
        #expect(attributes.kakaoID == 7)
        let merged = attributes.setting("kakao_id", .int(9)).serialized
        #expect(JSONValue.parse(Array(merged.utf8)) == ["role": "admin", "plan": ["tier": 2], "kakao_id": 9])
        #expect(attributes.removing("kakao_id").serialized == #"{"plan":{"tier":2},"role":"admin"}"#)
        #expect(CustomAttributes(nil)?.members.isEmpty == true)
        #expect(CustomAttributes("")?.members.isEmpty == true)
        #expect(CustomAttributes("[1]") == nil, "not an object: merging into it would lose it")
        #expect(CustomAttributes(#"{"linked_uid":"abc"}"#)?.linkedUID == "abc")
    }

    @Test func theVerificationCacheDropsOneUsersEntriesAtOnce() async throws {
        let kakao = FakeKakao()
        let cache = KakaoVerificationCache(wrapping: kakao, ttlSeconds: 60)
        let first = kakao.issue(KakaoUser(id: 1))
        let second = kakao.issue(KakaoUser(id: 1))
        let other = kakao.issue(KakaoUser(id: 2))
        for token in [first, second, other] { _ = try await cache.verify(accessToken: token, context: CallContext(requestID: "t")) }
        #expect(cache.count == 3)
        #expect(cache.dropUser(1) == 2)
        #expect(cache.count == 1)
        #expect(cache.dropUser(1) == 0)
        _ = try await cache.verify(accessToken: first, context: CallContext(requestID: "t"))
        #expect(kakao.calls == 4, "the dropped token was verified with Kakao again")
    }

    @Test func aVerificationUnderWayWhenTheWebhookArrivesIsNotStored() async throws {
        let kakao = FakeKakao()
        let unlinked = UnlinkedKakaoUsers()
        let cache = KakaoVerificationCache(wrapping: kakao, ttlSeconds: 60, unlinkedUsers: unlinked)
        let token = kakao.issue(KakaoUser(id: 5))
        kakao.delay(.milliseconds(200))
        async let verified = cache.verify(accessToken: token, context: CallContext(requestID: "t"))
        try await Task.sleep(for: .milliseconds(50))
        unlinked.record(5)
        _ = try await verified
        #expect(cache.count == 0)
    }
}
