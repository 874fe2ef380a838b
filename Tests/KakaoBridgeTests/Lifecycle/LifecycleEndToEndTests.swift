import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import Upstreams
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// The account lifecycle (the revoke endpoint, Kakao's unlink webhook, linking by email) over libcurl against the
/// strict stand-ins: Kakao unlinks and then calls the webhook, the Admin API stand-in keeps the users, the backend
/// stand-in records the notices. The rules one by one are `UnlinkWebhookTests`, `LinkingTests` and
/// `RevokeEndpointTests`.
@Suite("Account lifecycle end to end", .serialized)
struct LifecycleEndToEndTests {
    static let kakaoID: Int64 = 1_234_567_890
    static let uid = "kakao:1234567890"

    static func options(_ change: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in }) -> TestWorld.Options {
        var options = TestWorld.Options()
        options.backend = true
        options.unlink = true
        options.configure = change
        return options
    }

    @Test(arguments: [false, true])
    func theWebhookRevokesNotifiesAndTheCachedTokenIsRefused(post: Bool) async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            let token = world.validToken()
            let login = try await world.exchange(token)
            #expect(login.status == 200, "\(login.text)")
            let before = try #require(world.users.user(Self.uid)).validSince

            // Kakao unlinks the person (their tokens stop working at Kakao), then tells us.
            world.kakao.unlink(userID: Self.kakaoID)
            try await Task.sleep(for: .milliseconds(1100))  // validSince has one-second steps
            let reply = try await world.unlinkWebhook(userID: Self.kakaoID, post: post)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(try #require(world.users.user(Self.uid)).validSince > before)
            #expect(world.backend.unlinkNotices == [
                ["uid": .string(Self.uid), "kakao_id": .int(Self.kakaoID), "referrer_type": "UNLINK_FROM_APPS"],
            ])
            // The token was in the verification cache; it is not trusted any more, and Kakao refuses it.
            let again = try await world.exchange(token)
            #expect(again.status == 401)
            #expect(again.code == "invalid_kakao_token")
        }
    }

    /// Amended §8: Kakao gets its 200 well inside 3 s whatever the backend does; the slow step goes on after the
    /// answer.
    @Test func aSlowBackendRunsPastTheDeadlineAndKakaoStillGets200() async throws {
        try await TestWorld.with(Self.options { $0.kakao.unlinkDeadlineMS = 300 }) { world async throws in
            world.backend.setUnlinkFault(.delay(.seconds(2)))
            let started = ContinuousClock.now
            let reply = try await world.unlinkWebhook(userID: Self.kakaoID)
            let elapsed = ContinuousClock.now - started
            #expect(reply.status == 200)
            #expect(elapsed < .milliseconds(1500), "\(elapsed)")
            try await Self.eventually { world.backend.unlinkNotices.count == 1 }
        }
    }

    /// A backend that refuses is retried by the queue (1 s, then doubling) until it takes the notice.
    @Test func aBackendThatRefusesIsRetriedUntilItTakesTheNotice() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            world.backend.setUnlinkFault(.httpStatus(500, body: "{}"))
            let reply = try await world.unlinkWebhook(userID: Self.kakaoID)
            #expect(reply.status == 200)
            #expect(world.backend.unlinkNotices.isEmpty)
            world.backend.setUnlinkFault(nil)
            try await Self.eventually(within: .seconds(8)) { world.backend.unlinkNotices.count == 1 }
        }
    }

    static func eventually(within limit: Duration = .seconds(5), _ condition: @Sendable () -> Bool) async throws {
        let start = ContinuousClock.now
        while !condition() {
            guard ContinuousClock.now - start < limit else {
                Issue.record("not within \(limit)")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test func deleteThroughTheAdminAPI() async throws {
        try await TestWorld.with(Self.options { $0.kakao.unlinkAction = .delete }) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            #expect(world.users.user(Self.uid) != nil)
            #expect(try await world.unlinkWebhook(userID: Self.kakaoID, referrer: "ACCOUNT_DELETE").status == 200)
            #expect(world.users.user(Self.uid) == nil)
        }
    }

    @Test func aLinkedLoginThroughGoogleAndTheHookThenTheUnlink() async throws {
        try await TestWorld.with(Self.options { $0.linking.byVerifiedEmail = true }) { world async throws in
            var existing = world.users.newUser("email-user")
            existing.email = "ryan@example.com"
            existing.emailVerified = true
            existing.customAttributes = #"{"role":"admin"}"#
            _ = try world.users.create(existing)

            let login = try await world.exchange(world.validToken())
            #expect(login.status == 200, "\(login.text)")
            #expect(login.json?["uid"] == .string("email-user"))
            #expect(login.json?["firebase"]?["is_new_user"] == .bool(false))
            // Step 6: the backend asked the hook, which accepted the linked account's ID token by its kakao_id claim.
            #expect(world.backend.lastHookStatus == 200)
            #expect(world.backend.lastHookAnswer?["uid"] == .string("email-user"))
            #expect(world.users.user(Self.uid)?.disabled == true)

            #expect(try await world.unlinkWebhook(userID: Self.kakaoID).status == 200)
            let account = try #require(world.users.user("email-user"))
            #expect(account.disabled == false)
            #expect(account.customAttributes == #"{"role":"admin"}"#)
            #expect(world.users.user(Self.uid) == nil)
            #expect(world.backend.unlinkNotices.first?["uid"] == .string("email-user"))
        }
    }

    @Test func revokeEndsTheSessionsTheHookThenRefuses() async throws {
        try await TestWorld.with(Self.options { $0.hook.checkRevoked = true }) { world async throws in
            let token = world.validToken()
            let login = try await world.exchange(token)
            #expect(login.status == 200, "\(login.text)")
            let idToken = try #require(login.json?["firebase"]?["id_token"]?.stringValue)
            let body = #"{"kakao_token":"\#(token)","token":"\#(idToken)"}"#
            let hook = [("Authorization", "Bearer " + TestWorld.hookSecret)]
            #expect(try await world.post("/v1/login-complete", headers: hook, body: body).status == 200)

            try await Task.sleep(for: .milliseconds(1100))
            let revoked = try await world.post("/v1/users/revoke", headers: hook, body: #"{"uid":"\#(Self.uid)"}"#)
            #expect(revoked.status == 200, "\(revoked.text)")
            let after = try await world.post("/v1/login-complete", headers: hook, body: body)
            #expect(after.status == 401)
            #expect(after.code == "id_token_revoked")
            let unknown = try await world.post("/v1/users/revoke", headers: hook, body: #"{"uid":"kakao:1"}"#)
            #expect(unknown.status == 404)
        }
    }
}
