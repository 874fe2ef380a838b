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

/// Account deletion (docs/api.md#deleting-an-account) over libcurl against the strict stand-ins: Kakao's admin-key
/// unlink, the Firebase user (and a link record) gone, the unlink mark, the backend's notice, the record that answers a
/// second call, Naver's revoke and LINE's deauthorize with and without the person's token, and the refusals that do
/// nothing.
@Suite("Account deletion end to end", .serialized)
struct AccountDeletionEndToEndTests {
    static let kakaoID: Int64 = 1_234_567_890
    static let uid = "kakao:1234567890"
    static let hook = [("Authorization", "Bearer " + TestWorld.hookSecret)]

    static func options(naver: Bool = false, line: Bool = false, _ change: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in }) -> TestWorld.Options {
        var options = TestWorld.Options()
        options.backend = true
        options.unlink = true
        options.naver = naver
        options.line = line
        options.configure = change
        return options
    }

    static func delete(_ world: TestWorld, _ body: String, headers: [(String, String)] = hook) async throws -> Reply {
        try await world.post("/v1/users/delete", headers: headers, body: body)
    }

    static func steps(_ reply: Reply) -> [String: String] {
        var steps: [String: String] = [:]
        for name in ["provider_unlink", "firebase_user", "backend"] {
            if let value = reply.json?["steps"]?[name]?.stringValue { steps[name] = value }
        }
        return steps
    }

    static let allDone = ["provider_unlink": "done", "firebase_user": "done", "backend": "done"]

    // MARK: Kakao

    @Test func aKakaoUserIsUnlinkedDeletedMarkedAndTheBackendTold() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            #expect(world.users.user(Self.uid) != nil)

            let reply = try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string(Self.uid))
            #expect(reply.json?["provider"] == "kakao")
            #expect(Self.steps(reply) == Self.allDone)
            // Kakao's unlink with the admin key; the Firebase user gone; the backend told.
            #expect(world.kakao.unlinkedByAdmin == [Self.kakaoID])
            #expect(!world.kakao.isLinked(Self.kakaoID))
            #expect(world.users.user(Self.uid) == nil)
            #expect(world.backend.unlinkNotices == [
                ["event": "deleted", "uid": .string(Self.uid), "provider": "kakao", "provider_id": .string(String(Self.kakaoID))],
            ])
            // The cached verification is not trusted any more: Kakao is asked again, and refuses.
            let callsBefore = world.kakao.tokenInfoCalls
            ErrorMappingTests.expectProblem(try await world.exchange(token), 401, "invalid_kakao_token")
            #expect(world.kakao.tokenInfoCalls > callsBefore)

            // Asked again: the record answers, nothing is repeated.
            let (unlinkCalls, deletes) = (world.kakao.unlinkCalls, world.admin.calls(.delete))
            let again = try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#)
            #expect(again.status == 200, "\(again.text)")
            #expect(Self.steps(again) == Self.allDone)
            #expect(world.kakao.unlinkCalls == unlinkCalls)
            #expect(world.admin.calls(.delete) == deletes)
            #expect(world.backend.unlinkNotices.count == 1)
            // Counted by provider and outcome.
            let metrics = try await world.get("/metrics").text
            #expect(metrics.split(separator: "\n").contains { line in
                line.hasPrefix("kakao_bridge_account_deletions_total{") && line.contains(#"provider="kakao""#)
                    && line.contains(#"outcome="done""#) && !line.hasSuffix(" 0") && !line.hasSuffix(" 0.0")
            }, "\(metrics)")
        }
    }

    /// The mark: a Kakao ID token issued before the deletion, still valid at Kakao, signs nobody in again (it would
    /// create the account anew).
    @Test func anOlderKakaoIDTokenCannotBringTheAccountBack() async throws {
        try await TestWorld.with(OIDC.on(Self.options(), requireNonce: false)) { world async throws in
            let now = Int64(Date().timeIntervalSince1970)
            let idToken = try world.kakao.issueIDToken(for: OIDC.user, audience: OIDC.audience, nonce: nil, issuedAt: now - 5)
            #expect(try await world.exchange(idToken).status == 200)
            let reply = try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            ErrorMappingTests.expectProblem(try await world.exchange(idToken), 401, "invalid_kakao_id_token")
            #expect(world.users.user(Self.uid) == nil)
        }
    }

    @Test func aLinkedAccountIsDeletedWithItsLinkRecord() async throws {
        try await TestWorld.with(Self.options { $0.linking.byVerifiedEmail = true }) { world async throws in
            var existing = world.users.newUser("email-user")
            existing.email = "ryan@example.com"
            existing.emailVerified = true
            _ = try world.users.create(existing)
            let login = try await world.exchange(world.validToken())
            #expect(login.json?["uid"] == .string("email-user"), "\(login.text)")
            #expect(world.users.user(Self.uid) != nil)

            let reply = try await Self.delete(world, #"{"uid":"email-user"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["provider"] == "kakao")
            #expect(Self.steps(reply) == Self.allDone)
            #expect(world.users.user("email-user") == nil)
            #expect(world.users.user(Self.uid) == nil)
            #expect(world.kakao.unlinkedByAdmin == [Self.kakaoID])
            #expect(world.backend.unlinkNotices.first?["uid"] == "email-user")
        }
    }

    @Test func withoutTheAdminKeyKakaosStepIsSkipped() async throws {
        var options = TestWorld.Options()
        options.backend = true
        try await TestWorld.with(options) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            let reply = try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Self.steps(reply) == ["provider_unlink": "skipped", "firebase_user": "done", "backend": "skipped"])
            #expect(world.kakao.unlinkCalls == 0)
            #expect(world.users.user(Self.uid) == nil)
        }
    }

    @Test func aKakaoOrAdminAPIFailureLeavesAPendingDeletionTheQueueFinishes() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            world.kakao.setUnlinkFault(.errorCode(-1, httpStatus: 500))
            world.admin.setFault(.httpStatus(503, body: #"{"error":{"code":503,"message":"UNAVAILABLE"}}"#), only: .delete)
            let reply = try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#)
            #expect(reply.status == 202, "\(reply.text)")
            #expect(Self.steps(reply) == ["provider_unlink": "pending", "firebase_user": "pending", "backend": "pending"])
            #expect(world.users.user(Self.uid) != nil)
            #expect(world.backend.unlinkNotices.isEmpty)
            // Asked again while the failure lasts: still pending, from the record.
            #expect(try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#).status == 202)

            world.kakao.setUnlinkFault(nil)
            world.admin.setFault(nil)
            try await LifecycleEndToEndTests.eventually(within: .seconds(10)) { world.backend.unlinkNotices.count == 1 }
            #expect(world.users.user(Self.uid) == nil)
            #expect(world.kakao.unlinkedByAdmin == [Self.kakaoID])
            let done = try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#)
            #expect(done.status == 200, "\(done.text)")
            #expect(Self.steps(done) == Self.allDone)
        }
    }

    /// After a deletion the backend's hook refuses the person's old session: with `hook.check_revoked` the Firebase ID
    /// token names a user that is gone; without it, the Kakao token (unlinked by the admin key) is refused, its cached
    /// verification dropped with the deletion.
    @Test(arguments: [true, false])
    func theHookRefusesTheOldSessionAfterADeletion(checkRevoked: Bool) async throws {
        var options = Self.options { $0.hook.checkRevoked = checkRevoked }
        options.hook = true
        try await TestWorld.with(options) { world async throws in
            let kakao = world.validToken()
            let idToken = try await Self.idToken(world, kakao)
            let session = #"{"kakao_token":"\#(kakao)","token":"\#(idToken)"}"#
            #expect(try await world.post("/v1/login-complete", headers: Self.hook, body: session).status == 200)
            #expect(try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#).status == 200)
            let refused = try await world.post("/v1/login-complete", headers: Self.hook, body: session)
            ErrorMappingTests.expectProblem(refused, 401, checkRevoked ? "invalid_id_token" : "invalid_kakao_token")
        }
    }

    /// The Firebase ID token a login with `kakao` gave.
    static func idToken(_ world: TestWorld, _ kakao: String) async throws -> String {
        try #require(try await world.exchange(kakao).json?["firebase"]?["id_token"]?.stringValue)
    }

    /// A deletion answered 202 is counted `pending` then; when the queue finishes it, `done` once more, so a dashboard
    /// sees it end (docs/operations.md#scraping).
    @Test func aPendingDeletionIsCountedDoneWhenTheQueueFinishesIt() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            world.admin.setFault(.httpStatus(503, body: #"{"error":{"code":503,"message":"UNAVAILABLE"}}"#), only: .delete)
            #expect(try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#).status == 202)
            let before = try await Self.deletions(world, outcome: "done")
            world.admin.setFault(nil)
            try await LifecycleEndToEndTests.eventually(within: .seconds(10)) { world.backend.unlinkNotices.count == 1 }
            // Counted just after the backend hears of it.
            var after = try await Self.deletions(world, outcome: "done")
            let start = ContinuousClock.now
            while after < before + 1, ContinuousClock.now - start < .seconds(5) {
                try await Task.sleep(for: .milliseconds(50))
                after = try await Self.deletions(world, outcome: "done")
            }
            #expect(after >= before + 1, "done \(before) → \(after)")
        }
    }

    /// `kakao_bridge_account_deletions_total{provider="kakao",outcome=…}` as `/metrics` shows it now.
    static func deletions(_ world: TestWorld, outcome: String) async throws -> Double {
        let metrics = try await world.get("/metrics").text
        let line = metrics.split(separator: "\n").first { line in
            line.hasPrefix("kakao_bridge_account_deletions_total{") && line.contains(#"provider="kakao""#)
                && line.contains("outcome=\"\(outcome)\"")
        }
        return line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) } ?? 0
    }

    // MARK: The app's own route

    @Test func theAppDeletesItsPersonWithARecentIDToken() async throws {
        try await TestWorld.with(Self.options { $0.delete.selfService = true }) { world async throws in
            let login = try await world.exchange(world.validToken())
            let idToken = try #require(login.json?["firebase"]?["id_token"]?.stringValue)
            let reply = try await world.post("/v1/me/delete", headers: [("Authorization", "Bearer " + idToken)], body: "")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string(Self.uid))
            #expect(Self.steps(reply) == Self.allDone)
            #expect(world.users.user(Self.uid) == nil)
        }
    }

    @Test func anOldSignInMustReauthenticateAndNothingHappens() async throws {
        try await TestWorld.with(Self.options { $0.delete.selfService = true }) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            let now = UnixClock.system.now()
            var payload = SecureTokenKeys.idTokenPayload(projectID: world.account.projectID, uid: Self.uid, now: now)
            payload["auth_time"] = now - 301
            let old = try world.keys.signIDToken(payload: payload)
            let reply = try await world.post("/v1/me/delete", headers: [("Authorization", "Bearer " + old)], body: "")
            ErrorMappingTests.expectProblem(reply, 401, "reauthentication_required")
            #expect(world.users.user(Self.uid) != nil)
            #expect(world.kakao.unlinkCalls == 0)
            // A missing or broken ID token: 401 too.
            ErrorMappingTests.expectProblem(try await world.post("/v1/me/delete", body: ""), 401, "missing_token")
            ErrorMappingTests.expectProblem(
                try await world.post("/v1/me/delete", headers: [("Authorization", "Bearer a.b.c")], body: ""), 401, "invalid_id_token"
            )
        }
    }

    @Test func theAppsRouteIsOffUnlessSelfServiceIsOn() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            let login = try await world.exchange(world.validToken())
            let idToken = try #require(login.json?["firebase"]?["id_token"]?.stringValue)
            let reply = try await world.post("/v1/me/delete", headers: [("Authorization", "Bearer " + idToken)], body: "")
            ErrorMappingTests.expectProblem(reply, 404, "not_found")
            #expect(world.users.user(Self.uid) != nil)
        }
    }

    // MARK: Refusals

    @Test func refusalsDoNothing() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            _ = try world.users.create(world.users.newUser("someone-else"))
            // No secret, a wrong one: 401.
            ErrorMappingTests.expectProblem(try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#, headers: []), 401, "unauthorized")
            ErrorMappingTests.expectProblem(
                try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#, headers: [("Authorization", "Bearer wrong")]), 401, "unauthorized"
            )
            // Unknown, and not this service's: 404.
            ErrorMappingTests.expectProblem(try await Self.delete(world, #"{"uid":"kakao:1"}"#), 404, "not_found")
            ErrorMappingTests.expectProblem(try await Self.delete(world, #"{"uid":"someone-else"}"#), 404, "not_found")
            // A provider that is off: 400.
            ErrorMappingTests.expectProblem(try await Self.delete(world, #"{"uid":"naver:abc"}"#), 400, "invalid_request")
            // A Kakao token of another person: 401 token_mismatch.
            let other = world.validToken(id: 42, email: "other@example.com")
            ErrorMappingTests.expectProblem(
                try await Self.delete(world, #"{"uid":"\#(Self.uid)","provider_token":"\#(other)"}"#), 401, "token_mismatch"
            )
            #expect(world.users.user(Self.uid) != nil)
            #expect(world.users.user("someone-else") != nil)
            #expect(world.kakao.unlinkCalls == 0)
            #expect(world.backend.unlinkNotices.isEmpty)
        }
    }

    @Test func withoutTheHookSecretTheBackendsRouteIsOff() async throws {
        try await TestWorld.with(TestWorld.Options()) { world async throws in
            ErrorMappingTests.expectProblem(try await Self.delete(world, #"{"uid":"\#(Self.uid)"}"#), 404, "not_found")
        }
    }

    // MARK: Naver and LINE

    static let naverAccount = ProviderEndToEndTests.naverAccount
    static let lineAccount = ProviderEndToEndTests.lineAccount

    @Test func aNaverUserWithTheirTokenIsRevokedAndWithoutItSkipped() async throws {
        try await TestWorld.with(Self.options(naver: true)) { world async throws in
            let token = world.naver.issueToken(for: Self.naverAccount)
            #expect(try await ProviderEndToEndTests.exchange(world, token, "naver").status == 200)
            let uid = "naver:" + Self.naverAccount.id
            let reply = try await Self.delete(world, #"{"uid":"\#(uid)","provider_token":"\#(token)"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["provider"] == "naver")
            #expect(Self.steps(reply) == Self.allDone)
            #expect(world.naver.revokedIDs == [Self.naverAccount.id])
            #expect(world.users.user(uid) == nil)
            #expect(world.backend.unlinkNotices.first == [
                "event": "deleted", "uid": .string(uid), "provider": "naver", "provider_id": .string(Self.naverAccount.id),
            ])

            // Another person, no token: the step is skipped and the answer says so.
            var second = Self.naverAccount
            second.id = "another-naver-id"
            second.email = nil
            #expect(try await ProviderEndToEndTests.exchange(world, world.naver.issueToken(for: second), "naver").status == 200)
            let skipped = try await Self.delete(world, #"{"uid":"naver:another-naver-id"}"#)
            #expect(skipped.status == 200, "\(skipped.text)")
            #expect(Self.steps(skipped) == ["provider_unlink": "skipped", "firebase_user": "done", "backend": "done"])
            #expect(world.naver.revokeCalls == 1)
        }
    }

    @Test func aNaverTokenOfAnotherPersonIsRefusedAndAFailedRevokeIsFailed() async throws {
        try await TestWorld.with(Self.options(naver: true)) { world async throws in
            let token = world.naver.issueToken(for: Self.naverAccount)
            #expect(try await ProviderEndToEndTests.exchange(world, token, "naver").status == 200)
            let uid = "naver:" + Self.naverAccount.id
            var other = Self.naverAccount
            other.id = "someone-else"
            let foreign = world.naver.issueToken(for: other)
            ErrorMappingTests.expectProblem(
                try await Self.delete(world, #"{"uid":"\#(uid)","provider_token":"\#(foreign)"}"#), 401, "token_mismatch"
            )
            #expect(world.naver.revokeCalls == 0)
            #expect(world.users.user(uid) != nil)
            // Naver is down: the token is not kept, so the step is failed, not pending; the rest goes on.
            world.naver.setRevokeFault(503)
            let reply = try await Self.delete(world, #"{"uid":"\#(uid)","provider_token":"\#(token)"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Self.steps(reply) == ["provider_unlink": "failed", "firebase_user": "done", "backend": "done"])
            #expect(!reply.text.contains(token))
        }
    }

    @Test func aLineUserWithTheirTokenIsDeauthorizedAndWithoutItSkipped() async throws {
        try await TestWorld.with(Self.options(line: true)) { world async throws in
            let token = world.line.issueToken(for: Self.lineAccount)
            #expect(try await ProviderEndToEndTests.exchange(world, token, "line").status == 200)
            let uid = "line:" + Self.lineAccount.userID
            let reply = try await Self.delete(world, #"{"uid":"\#(uid)","provider_token":"\#(token)"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["provider"] == "line")
            #expect(Self.steps(reply) == Self.allDone)
            #expect(world.line.deauthorizedIDs == [Self.lineAccount.userID])
            #expect(world.users.user(uid) == nil)
            #expect(world.backend.unlinkNotices.first?["provider"] == "line")

            var second = Self.lineAccount
            second.userID = "Uffffeeeeddddccccbbbbaaaa99998888"
            #expect(try await ProviderEndToEndTests.exchange(world, world.line.issueToken(for: second), "line").status == 200)
            let skipped = try await Self.delete(world, #"{"uid":"line:\#(second.userID)"}"#)
            #expect(skipped.status == 200, "\(skipped.text)")
            #expect(Self.steps(skipped) == ["provider_unlink": "skipped", "firebase_user": "done", "backend": "done"])
            #expect(world.line.deauthorizeCalls == 1)
        }
    }

    @Test func aLineTokenLINENoLongerAcceptsCountsAsDeauthorized() async throws {
        try await TestWorld.with(Self.options(line: true)) { world async throws in
            let token = world.line.issueToken(for: Self.lineAccount)
            #expect(try await ProviderEndToEndTests.exchange(world, token, "line").status == 200)
            let uid = "line:" + Self.lineAccount.userID
            // The person unlinked in LINE's settings: the token is dead, so verification cannot tell, and LINE's
            // deauthorize answers 400 "invalid token": done.
            world.line.expire(token)
            let reply = try await Self.delete(world, #"{"uid":"\#(uid)","provider_token":"\#(token)"}"#)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(Self.steps(reply) == Self.allDone)
            #expect(world.line.deauthorizeCalls == 1)
        }
    }
}
