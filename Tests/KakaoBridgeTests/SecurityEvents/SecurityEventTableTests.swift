import BridgeJSON
import BridgeSupport
import Foundation
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Every row of the security events' table (docs/api.md#kakaos-security-events) end to end: a SET signed with the Kakao
/// stand-in's OIDC key, through the real server and libcurl, acted on at the Admin API stand-in, told to the backend
/// stand-in. The verification rules one by one are `SecurityEventRuleTests`.
@Suite("Security events: the table")
struct SecurityEventTableTests {
    static let kakaoID: Int64 = 1_234_567_890
    static let uid = "kakao:1234567890"

    static func seed(_ world: TestWorld, uid: String = uid, email: String? = nil, disabled: Bool = false) throws {
        var user = world.users.newUser(uid)
        user.displayName = "Ryan"
        user.validSince = 1000
        user.disabled = disabled
        if let email {
            user.email = email
            user.emailVerified = true
        }
        _ = try world.users.create(user)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    // MARK: Unlinked and purged: the unlink webhook's steps

    @Test func userUnlinkedTakesTheUnlinkPathWithTheEventsReason() async throws {
        var options = SecurityEventsOn.options()
        options.unlink = true
        try await TestWorld.with(options) { world async throws in
            try Self.seed(world)
            let reply = try await world.securityEvent(.userUnlinked, userID: Self.kakaoID, jti: "jti-unlinked", reason: "UNLINK_FROM_APPS")
            #expect(reply.status == 202, "\(reply.text)")
            #expect(try #require(world.users.user(Self.uid)).validSince >= Self.now() - 5, "kakao.unlink_action revoke")
            #expect(world.backend.unlinkNotices == [
                ["uid": .string(Self.uid), "kakao_id": .int(Self.kakaoID), "referrer_type": "UNLINK_FROM_APPS"],
            ])
            #expect(world.backend.eventNotices == [[
                "uid": .string(Self.uid), "kakao_id": .int(Self.kakaoID), "jti": "jti-unlinked",
                "event": "https://schemas.openid.net/secevent/oauth/event-type/user-unlinked",
            ]])
        }
    }

    @Test func accountPurgedUnlinksAsAnAccountDelete() async throws {
        var options = SecurityEventsOn.options { $0.kakao.unlinkAction = .delete }
        options.unlink = true
        try await TestWorld.with(options) { world async throws in
            try Self.seed(world)
            #expect(try await world.securityEvent(.accountPurged, userID: Self.kakaoID).status == 202)
            #expect(world.users.user(Self.uid) == nil)
            #expect(world.backend.unlinkNotices.first?["referrer_type"] == "ACCOUNT_DELETE")
            #expect(world.backend.eventNotices.count == 1)
        }
    }

    // MARK: Disabled and enabled

    @Test func accountDisabledDisablesAndRevokesAndOnlyTheServicesDisableIsUndone() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            try Self.seed(world)
            try Self.seed(world, uid: "kakao:77", disabled: true)  // disabled by an operator, not by Kakao's event
            #expect(try await world.securityEvent(.accountDisabled, userID: Self.kakaoID).status == 202)
            let disabled = try #require(world.users.user(Self.uid))
            #expect(disabled.disabled)
            #expect(disabled.validSince >= Self.now() - 5)
            #expect(try await world.securityEvent(.accountDisabled, userID: 77).status == 202)

            #expect(try await world.securityEvent(.accountEnabled, userID: Self.kakaoID).status == 202)
            #expect(try #require(world.users.user(Self.uid)).disabled == false, "the service disabled it, so it enables it")
            #expect(try await world.securityEvent(.accountEnabled, userID: 77).status == 202)
            #expect(try #require(world.users.user("kakao:77")).disabled, "an operator disabled it: left alone")
            // An enable with nothing the service disabled changes nothing either.
            #expect(try await world.securityEvent(.accountEnabled, userID: Self.kakaoID).status == 202)
            #expect(try #require(world.users.user(Self.uid)).disabled == false)
            #expect(world.backend.eventNotices.map { $0["event"]?.stringValue?.split(separator: "/").last.map(String.init) } == [
                "account-disabled", "account-disabled", "account-enabled", "account-enabled", "account-enabled",
            ])
        }
    }

    // MARK: Sessions revoked and credentials changed

    static let revokingTypes: [KakaoSecurityEventType] = [
        .sessionsRevoked, .credentialCompromise, .credentialChangeRequired, .credentialChange, .tokensRevoked,
    ]

    @Test(arguments: revokingTypes)
    func revokesTheSessionsAndDropsCachedVerifications(type: KakaoSecurityEventType) async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.exchange(token).status == 200)
            let calls = world.kakao.apiCalls
            #expect(try await world.securityEvent(type, userID: Self.kakaoID).status == 202)
            let user = try #require(world.users.user(Self.uid))
            #expect(user.validSince >= Self.now() - 5)
            #expect(user.disabled == false)
            _ = try await world.exchange(token)
            #expect(world.kakao.apiCalls > calls, "the cached verification was dropped: Kakao is asked again")
            #expect(world.backend.eventNotices.first?["event"] == .string(type.rawValue))
        }
    }

    @Test func tokenRevokedOnlyDropsCachedVerifications() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            let before = try #require(world.users.user(Self.uid))
            let calls = world.kakao.apiCalls
            #expect(try await world.securityEvent(.tokenRevoked, userID: Self.kakaoID).status == 202)
            #expect(world.users.user(Self.uid) == before, "nothing in Firebase")
            _ = try await world.exchange(token)
            #expect(world.kakao.apiCalls > calls)
            #expect(world.backend.eventNotices.count == 1)
        }
    }

    // MARK: A recycled address, a changed profile

    @Test func identifierRecycledTakesAwayEmailVerified() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            try Self.seed(world, email: "ryan@example.com")
            #expect(try await world.securityEvent(.identifierRecycled, userID: Self.kakaoID).status == 202)
            let user = try #require(world.users.user(Self.uid))
            #expect(user.emailVerified == false)
            #expect(user.email == "ryan@example.com")
            #expect(user.disabled == false)
        }
    }

    @Test(arguments: [KakaoSecurityEventType.identifierChanged, .profileChanged])
    func aProfileChangeDropsTheUserCacheAndCachedVerifications(type: KakaoSecurityEventType) async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.exchange(token).status == 200)
            let (kakaoCalls, lookups) = (world.kakao.apiCalls, world.admin.calls(.lookup))
            let before = try #require(world.users.user(Self.uid))
            #expect(try await world.securityEvent(type, userID: Self.kakaoID).status == 202)
            #expect(world.users.user(Self.uid) == before, "nothing in Firebase")
            #expect(try await world.exchange(token).status == 200)
            #expect(world.kakao.apiCalls > kakaoCalls, "Kakao's profile is read again")
            #expect(world.admin.calls(.lookup) > lookups, "the user record is looked up again")
        }
    }

    // MARK: Everything else

    @Test(arguments: [KakaoSecurityEventType.userLinked, .tokenIssued])
    func otherTypesAreAcknowledgedAndCountedOnly(type: KakaoSecurityEventType) async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            try Self.seed(world)
            let before = world.users.user(Self.uid)
            let counted = try await Self.count(world, event: type.name, outcome: "acknowledged")
            let reply = try await world.securityEvent(type, userID: Self.kakaoID)
            #expect(reply.status == 202)
            #expect(world.users.user(Self.uid) == before)
            #expect(world.admin.totalCalls == 0)
            #expect(world.backend.eventNotices.isEmpty)
            #expect(try await Self.count(world, event: type.name, outcome: "acknowledged") == counted + 1)
        }
    }

    @Test func aTypeKakaoAddsLaterIsAcknowledgedAsOther() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            let payload = KakaoStandIn.securityEventPayload(
                type: "https://schemas.kakao.com/platevent/kakao/event-type/something-new", userID: Self.kakaoID,
                audience: SecurityEventsOn.audience
            )
            let counted = try await Self.count(world, event: "other", outcome: "acknowledged")
            #expect(try await world.postSecurityEvent(try world.kakao.securityEventToken(payload: payload)).status == 202)
            #expect(try await Self.count(world, event: "other", outcome: "acknowledged") == counted + 1)
            #expect(try await world.get("/metrics").text.contains("something-new") == false, "no label from the sender's text")
        }
    }

    // MARK: No user, link records

    @Test func revokeAndDisableOnAUserThatDoesNotExistDoNothing() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            #expect(try await world.securityEvent(.accountDisabled, userID: Self.kakaoID).status == 202)
            #expect(try await world.securityEvent(.sessionsRevoked, userID: Self.kakaoID).status == 202)
            #expect(world.users.count == 0)
            #expect(world.admin.calls(.update) == 0)
            #expect(world.backend.eventNotices.map { $0["uid"] } == [.null, .null])
        }
    }

    @Test func aLinkedAccountIsNeverDisabledOnlyItsSessionsRevoked() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            var account = world.users.newUser("email-user")
            account.email = "ryan@example.com"
            account.emailVerified = true
            account.validSince = 1000
            account.customAttributes = #"{"kakao_id":1234567890,"role":"admin"}"#
            _ = try world.users.create(account)
            var record = world.users.newUser(Self.uid)
            record.disabled = true
            record.customAttributes = #"{"linked_uid":"email-user"}"#
            _ = try world.users.create(record)

            #expect(try await world.securityEvent(.accountDisabled, userID: Self.kakaoID).status == 202)
            let linked = try #require(world.users.user("email-user"))
            #expect(linked.disabled == false)
            #expect(linked.validSince >= Self.now() - 5)
            #expect(linked.customAttributes == #"{"kakao_id":1234567890,"role":"admin"}"#)
            #expect(world.backend.eventNotices.first?["uid"] == "email-user")

            // A recycled address is the Kakao account's: the linked account's own, verified by its own sign-in, stays.
            #expect(try await world.securityEvent(.identifierRecycled, userID: Self.kakaoID).status == 202)
            #expect(try #require(world.users.user("email-user")).emailVerified)

            // Unlinked: the linked account loses kakao_id and its sessions; the link record goes.
            #expect(try await world.securityEvent(.userUnlinked, userID: Self.kakaoID, reason: "UNLINK_FROM_APPS").status == 202)
            #expect(try #require(world.users.user("email-user")).customAttributes == #"{"role":"admin"}"#)
            #expect(world.users.user(Self.uid) == nil)
        }
    }

    // MARK: Replay, retries

    @Test func theSameSETAgainIsAcceptedAndChangesNothing() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            try Self.seed(world)
            let payload = KakaoStandIn.securityEventPayload(
                type: KakaoSecurityEventType.sessionsRevoked.rawValue, userID: Self.kakaoID, audience: SecurityEventsOn.audience,
                jti: "replayed-jti"
            )
            let set = try world.kakao.securityEventToken(payload: payload)
            let replays = try await Self.count(world, event: "sessions-revoked", outcome: "replayed")
            #expect(try await world.postSecurityEvent(set).status == 202)
            let first = try #require(world.users.user(Self.uid)).validSince
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await world.postSecurityEvent(set).status == 202)
            #expect(try #require(world.users.user(Self.uid)).validSince == first)
            #expect(world.backend.eventNotices.count == 1)
            #expect(world.admin.calls(.update) == 1)
            #expect(try await Self.count(world, event: "sessions-revoked", outcome: "replayed") == replays + 1)
        }
    }

    @Test func anAdminAPIFailingAtFirstIsAppliedByTheRetry() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            try Self.seed(world)
            world.admin.setFault(.httpStatus(503, body: #"{"error":{"code":503,"message":"UNAVAILABLE","status":"UNAVAILABLE"}}"#), times: 2)
            let reply = try await world.securityEvent(.accountDisabled, userID: Self.kakaoID)
            #expect(reply.status == 202, "acknowledged although the action failed")
            #expect(try #require(world.users.user(Self.uid)).disabled == false)
            try await LifecycleEndToEndTests.eventually(within: .seconds(10)) { world.users.user(Self.uid)?.disabled == true }
            try await LifecycleEndToEndTests.eventually { world.backend.eventNotices.count == 1 }
        }
    }

    @Test func aSlowAdminAPIStillGets202WithinThreeSeconds() async throws {
        try await TestWorld.with(SecurityEventsOn.options { $0.kakao.unlinkDeadlineMS = 1000 }) { world async throws in
            try Self.seed(world)
            world.admin.setFault(.delay(.seconds(4)), times: 1)
            let start = ContinuousClock.now
            let reply = try await world.securityEvent(.sessionsRevoked, userID: Self.kakaoID)
            let took = ContinuousClock.now - start
            #expect(reply.status == 202)
            #expect(took < .seconds(3), "answered after \(took)")
            try await LifecycleEndToEndTests.eventually(within: .seconds(15)) { (world.users.user(Self.uid)?.validSince ?? 0) > 1000 }
        }
    }

    @Test func aBackendFailingAtFirstIsToldByTheRetry() async throws {
        try await TestWorld.with(SecurityEventsOn.options()) { world async throws in
            try Self.seed(world)
            world.backend.setEventsFault(.httpStatus(500, body: "{}"), times: 2)
            #expect(try await world.securityEvent(.sessionsRevoked, userID: Self.kakaoID, jti: "told-later").status == 202)
            #expect(world.backend.eventNotices.isEmpty)
            try await LifecycleEndToEndTests.eventually(within: .seconds(10)) { world.backend.eventNotices.count == 1 }
            #expect(world.backend.eventNotices.first?["jti"] == "told-later")
            #expect(world.admin.calls(.update) == 1, "the Firebase step that succeeded is not repeated")
        }
    }

    /// `kakao_bridge_security_events_total{event,outcome}` now: metrics are one set per test process, so tests compare.
    static func count(_ world: TestWorld, event: String, outcome: String) async throws -> Int {
        let prefix = #"kakao_bridge_security_events_total{event="\#(event)",outcome="\#(outcome)"} "#
        let metrics = try await world.get("/metrics").text
        guard let line = metrics.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return 0 }
        return Int(line.dropFirst(prefix.count)) ?? -1
    }
}

extension KakaoSecurityEventType: CustomTestStringConvertible {
    public var testDescription: String { name }
}
