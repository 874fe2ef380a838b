import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StateStore
import Testing
import Upstreams
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Kakao's unlink webhook (docs/api.md#kakaos-unlink-webhook), rule by rule, at the router's depth with the in-memory
/// Admin API and backend. The wire (libcurl, the stand-ins, the deadline) is `LifecycleEndToEndTests`' business.
@Suite("Unlink webhook")
struct UnlinkWebhookTests {
    static let adminKey = "0123456789abcdef0123456789abcdef"
    static let kakaoID: Int64 = 1_234_567_890
    static let uid = "kakao:1234567890"

    static func options(
        action: String = "revoke", notify: Bool = true, _ change: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in }
    ) -> RouterWorld.Options {
        var options = RouterWorld.Options()
        options.hook = true
        options.configure = { config in
            config.kakao.adminKey = adminKey
            config.kakao.unlinkAction = .init(rawValue: action)!
            if notify { config.backend.unlinkURL = "http://127.0.0.1:9/never-called" }
            change(&config)
        }
        return options
    }

    static func query(appID: Int64 = RouterWorld.appID, userID: String = "1234567890", referrer: String = "UNLINK_FROM_APPS") -> String {
        "app_id=\(appID)&user_id=\(userID)&referrer_type=\(referrer)"
    }

    static func get(_ world: RouterWorld, _ query: String = query(), key: String? = adminKey) async throws -> Reply {
        try await world.get("/v1/kakao/unlink?" + query, headers: key.map { [("Authorization", "KakaoAK " + $0)] } ?? [])
    }

    static func post(_ world: RouterWorld, _ form: String = query(), key: String? = adminKey) async throws -> Reply {
        var headers = [("Content-Type", "application/x-www-form-urlencoded")]
        if let key { headers.append(("Authorization", "KakaoAK " + key)) }
        return try await world.post("/v1/kakao/unlink", headers: headers, body: form)
    }

    // MARK: Switched off, authentication, parameters

    @Test func withoutAnAdminKeyTheWebhookIs404AndNeverTheLegacyRoute() async throws {
        var options = RouterWorld.Options()
        options.configure = { $0.kakao.adminKey = "" }
        try await RouterWorld.with(options) { world async throws in
            for reply in [try await Self.get(world), try await Self.post(world)] {
                #expect(reply.status == 404, "\(reply.text)")
                #expect(reply.code == "not_found")
            }
            // `unlink` was not verified with Kakao as if it were an access token.
            #expect(world.kakao.calls == 0)
        }
    }

    @Test func aMissingOrWrongAdminKeyIsUnauthorized() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            for key in [nil, "wrong", Self.adminKey + "x", String(Self.adminKey.dropLast())] as [String?] {
                let reply = try await Self.get(world, key: key)
                #expect(reply.status == 401)
                #expect(reply.code == "unauthorized")
            }
            let bearer = try await world.get(
                "/v1/kakao/unlink?" + Self.query(), headers: [("Authorization", "Bearer " + Self.adminKey)]
            )
            #expect(bearer.status == 401)
            #expect(world.admin.calls.isEmpty)
        }
    }

    @Test func anotherAppsCallbackIsUnauthorizedAndABadUserIDIsInvalid() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let other = try await Self.get(world, Self.query(appID: 777))
            #expect(other.status == 401)
            #expect(other.code == "unauthorized")
            for userID in ["", "abc", "-5", "0", "12345678901234567890123"] {
                let reply = try await Self.get(world, Self.query(userID: userID))
                #expect(reply.status == 400, "user_id \(userID)")
                #expect(reply.code == "invalid_request")
            }
            let missing = try await Self.get(world, "app_id=\(RouterWorld.appID)")
            #expect(missing.status == 400)
            #expect(world.admin.calls.isEmpty)
            #expect(world.unlinks.notices.isEmpty)
        }
    }

    // MARK: The actions

    @Test(arguments: ["GET", "POST"])
    func revokeIsTheDefaultAndBothMethodsWork(method: String) async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, displayName: "Ryan", validSince: 1000))
            let reply = method == "GET" ? try await Self.get(world) : try await Self.post(world)
            #expect(reply.status == 200, "\(reply.text)")
            let user = try #require(world.admin.user(Self.uid))
            #expect(try #require(user.validSince) >= UnixClock.system.now() - 5)
            #expect(user.disabled == false)
            #expect(world.unlinks.notices == [UnlinkNotice(uid: Self.uid, kakaoID: Self.kakaoID, referrerType: "UNLINK_FROM_APPS")])
        }
    }

    @Test func disableRevokesAndDisables() async throws {
        try await RouterWorld.with(Self.options(action: "disable")) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, validSince: 1000))
            #expect(try await Self.get(world).status == 200)
            let user = try #require(world.admin.user(Self.uid))
            #expect(user.disabled)
            #expect(try #require(user.validSince) > 1000)
            // Disabled: the next login is refused.
            let login = try await world.exchange(world.validToken())
            #expect(login.status == 403)
            #expect(login.code == "user_disabled")
        }
    }

    @Test func deleteDeletesAndNoneLeavesTheUserAlone() async throws {
        try await RouterWorld.with(Self.options(action: "delete")) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid))
            #expect(try await Self.post(world).status == 200)
            #expect(world.admin.user(Self.uid) == nil)
            #expect(world.admin.calls.contains(.delete(Self.uid)))
        }
        try await RouterWorld.with(Self.options(action: "none")) { world async throws in
            let before = FirebaseUserRecord(uid: Self.uid, displayName: "Ryan", validSince: 1000)
            world.admin.seed(before)
            #expect(try await Self.post(world).status == 200)
            #expect(world.admin.user(Self.uid) == before)
            #expect(world.admin.calls == [.lookUp(.uid(Self.uid))])
            #expect(world.unlinks.notices.count == 1)
        }
    }

    @Test func withNoFirebaseUserTheBackendStillHearsOfItWithANullUID() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let reply = try await Self.get(world, Self.query(referrer: "ACCOUNT_DELETE"))
            #expect(reply.status == 200)
            #expect(world.unlinks.notices == [UnlinkNotice(uid: nil, kakaoID: Self.kakaoID, referrerType: "ACCOUNT_DELETE")])
        }
    }

    @Test func aLinkedAccountLosesItsKakaoIDAndSessionsButIsNeverDisabledOrDeleted() async throws {
        for action in ["delete", "disable", "none"] {
            try await RouterWorld.with(Self.options(action: action)) { world async throws in
                world.admin.seed(FirebaseUserRecord(
                    uid: "email-user", email: "ryan@example.com", emailVerified: true, validSince: 1000,
                    customAttributes: #"{"kakao_id":1234567890,"role":"admin"}"#
                ))
                world.admin.seed(FirebaseUserRecord(uid: Self.uid, disabled: true, customAttributes: #"{"linked_uid":"email-user"}"#))
                #expect(try await Self.get(world).status == 200, "\(action)")
                let linked = try #require(world.admin.user("email-user"))
                #expect(linked.disabled == false)
                #expect(linked.customAttributes == #"{"role":"admin"}"#)
                #expect(try #require(linked.validSince) > 1000)
                #expect(world.admin.user(Self.uid) == nil, "the link record is deleted")
                #expect(world.unlinks.notices.map(\.uid) == ["email-user"])
            }
        }
    }

    // MARK: Cached verifications, replays

    @Test func aCachedKakaoTokenIsNotTrustedAfterTheWebhook() async throws {
        try await RouterWorld.with(Self.options(notify: false)) { world async throws in
            let token = world.validToken()
            let other = world.validToken(id: 42)
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.exchange(other).status == 200)
            #expect(try await world.exchange(token).status == 200)
            #expect(world.kakao.calls == 2, "the second exchange of the token was a cache hit")
            #expect(try await Self.get(world).status == 200)
            // Kakao is asked again for the unlinked user only; the other user's entry stays.
            _ = try await world.exchange(token)
            #expect(world.kakao.calls == 3)
            _ = try await world.exchange(other)
            #expect(world.kakao.calls == 3)
        }
    }

    @Test func aReplayedCallbackIsHarmless() async throws {
        try await RouterWorld.with(Self.options(action: "delete")) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid))
            #expect(try await Self.get(world).status == 200)
            #expect(try await Self.get(world).status == 200)
            #expect(world.admin.user(Self.uid) == nil)
            #expect(world.unlinks.notices.map(\.uid) == [Self.uid, nil])
        }
    }

    // MARK: Failures

    /// Amended §8: Kakao gets 200 whatever a step does; the step stays pending in the store with its code, a warning
    /// names the uid, and a later round finishes it without repeating what succeeded.
    @Test func anAdminFailureIsAnsweredWith200AndRetriedFromTheStore() async throws {
        try await RouterWorld.with(Self.options { _ in }) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid))
            world.admin.fail("update", with: .firebaseAdminUnavailable("The Admin API answered 503."))
            let reply = try await Self.get(world)
            #expect(reply.status == 200)
            #expect(reply.text == "OK")
            let line = try #require(world.logs.lines.first { $0.contains("unlink step failed") })
            #expect(line.contains(#""uid":"kakao:1234567890""#))
            #expect(line.contains(#""code":"firebase_admin_unavailable""#))
            #expect(line.contains(#""level":"warning""#))
            // The backend still heard of it: its data is not Firebase's.
            #expect(world.unlinks.notices.count == 1)
            let pending = try await world.unlinkEvents(.pending)
            #expect(pending.count == 1)
            #expect(pending.first?.firebase.state == .pending)
            #expect(pending.first?.firebase.lastErrorCode == "firebase_admin_unavailable")
            #expect(pending.first?.backend.state == .done)

            world.admin.fail("update", with: nil)
            try await Task.sleep(for: .milliseconds(1100))
            // This test's round, or the application's own worker, whichever takes the event first.
            #expect(try await world.retryDueUnlinks(until: { try await world.unlinkEvents(.pending).isEmpty }))
            #expect(world.admin.user(Self.uid)?.validSince != nil)
            #expect(world.unlinks.notices.count == 1, "a step that succeeded is not repeated")
        }
    }

    @Test func aLookupFailureIs200AndTheBackendIsNotToldAGuess() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.fail("lookup", with: .firebaseAdminUnavailable("down"))
            let reply = try await Self.get(world)
            #expect(reply.status == 200)
            #expect(world.unlinks.notices.isEmpty)
            let pending = try await world.unlinkEvents(.pending)
            #expect(pending.map(\.firebase.lastErrorCode) == ["firebase_admin_unavailable"])
            #expect(pending.map(\.backend.state) == [.pending])
        }
    }

    /// One world per failure: the application's queue worker runs in the router-level world too, and retries a pending
    /// step with whatever the backend fails with at that moment.
    @Test(arguments: [
        (Problem.backendUnavailable("unreachable"), "backend_unavailable"), (.backendNoticeRejected(status: 500), "backend_rejected"),
        (.upstreamTimeout("The backend"), "upstream_timeout"),
    ])
    func aBackendFailureIs200AndStaysPendingWithItsCode(problem: Problem, code: String) async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.unlinks.fail(with: problem)
            let reply = try await Self.get(world)
            #expect(reply.status == 200)
            var codes: [String] = []
            for _ in 0..<1200 {
                codes = try await world.unlinkEvents(.pending).compactMap(\.backend.lastErrorCode)
                if !codes.isEmpty { break }
                try await Task.sleep(for: .milliseconds(25))
            }
            #expect(codes == [code])
        }
    }

    @Test func anEventPastItsRetryHoursIsFailedAndLoggedAtError() async throws {
        try await RouterWorld.with(Self.options { $0.kakao.unlinkRetryHours = 0.0003 }) { world async throws in
            world.unlinks.fail(with: .backendUnavailable("unreachable"))
            #expect(try await Self.get(world).status == 200)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await world.retryDueUnlinks(until: { try await !world.unlinkEvents(.failed).isEmpty }))
            let failed = try await world.unlinkEvents(.failed)
            #expect(failed.map(\.lastErrorCode) == ["backend_unavailable"])
            let line = try #require(world.logs.lines.first { $0.contains("unlink event failed") })
            #expect(line.contains(#""level":"error""#))
            #expect(line.contains(#""uid":"kakao:1234567890""#) || line.contains(#""kakao_id":1234567890"#))
        }
    }

    @Test func theWebhookIsNotRateLimitedPerClient() async throws {
        try await RouterWorld.with(Self.options(notify: false) { $0.rateLimit.perClientPerMinute = 2 }) { world async throws in
            for _ in 0..<5 { #expect(try await Self.get(world).status == 200) }
        }
    }

    @Test func aClientThatKeepsFailingAuthenticationIsRateLimitedButKakaosAuthenticatedCallsNeverAre() async throws {
        try await RouterWorld.with(Self.options(notify: false) { $0.rateLimit.perClientPerMinute = 3 }) { world async throws in
            // Three refusals, whatever made them: the per-client budget.
            #expect(try await Self.get(world, key: nil).status == 401)
            #expect(try await Self.post(world, key: "0123456789abcdef0123456789abcdee").status == 401)
            #expect(try await Self.get(world, Self.query(appID: 777)).status == 401)
            for refused in [try await Self.get(world, key: "wrong"), try await Self.get(world, Self.query(appID: 778))] {
                #expect(refused.status == 429, "\(refused.text)")
                #expect(refused.code == "rate_limited")
                #expect(Int(refused.header("retry-after") ?? "") ?? 0 >= 1)
            }
            // The same client with the right key and app id: Kakao, answered every time.
            for _ in 0..<5 { #expect(try await Self.get(world).status == 200) }
            #expect(try await Self.get(world, key: "wrong").status == 429)
        }
    }
}
