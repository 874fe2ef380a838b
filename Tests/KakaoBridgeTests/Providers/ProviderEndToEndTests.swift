import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Naver and LINE logins through the whole flow (docs/api.md#providers) over libcurl against the strict
/// stand-ins: steps 2–6, the user sync, the hook with the provider-shaped body, the cache, the refusals as the providers
/// send them, and Naver's unlink callback to a pending queue step and back.
@Suite("Naver and LINE logins end to end: steps 2–6, user sync, hook, cache, unlink callback")
struct ProviderEndToEndTests {
    static let naverAccount = NaverStandIn.Account(
        id: "32742776-e2e-naver-id", nickname: "naverNick", name: "Kim Naver", email: "kim@naver.com",
        profileImage: "https://phinf.pstatic.net/contact/e2e.png"
    )
    static let lineAccount = LineStandIn.Account(
        userID: "Uaaaabbbbccccddddeeeeffff00001111", displayName: "Brown", pictureURL: "https://profile.line-scdn.net/e2e",
        email: "brown@line.me"
    )

    static var allSteps: TestWorld.Options {
        var options = TestWorld.Options()
        options.backend = true
        options.naver = true
        options.line = true
        return options
    }

    static func exchange(_ world: TestWorld, _ token: String, _ provider: String) async throws -> Reply {
        try await world.get("/v1/token-exchange?provider=" + provider, headers: [("Authorization", "Bearer " + token)])
    }

    // MARK: Naver

    @Test func aNaverLoginRunsAllSixStepsAndTheHookConfirmsIt() async throws {
        try await TestWorld.with(Self.allSteps) { world async throws in
            let token = world.naver.issueToken(for: Self.naverAccount)
            let reply = try await Self.exchange(world, token, "naver")
            #expect(reply.status == 200, "\(reply.text)")
            let uid = "naver:" + Self.naverAccount.id
            #expect(reply.json?["uid"] == .string(uid))
            #expect(reply.json?["provider"] == "naver")
            #expect(reply.json?["naver"]?["email"] == "kim@naver.com")
            #expect(reply.json?["naver"]?["profile_image_url"] == "https://phinf.pstatic.net/contact/e2e.png")
            #expect(reply.json?["firebase"]?["is_new_user"] == .bool(true))
            #expect(reply.json?["login"]?["status"] == .int(200))
            // Step 6: the provider's body shape, and the hook confirmed it.
            let sent = try #require(world.backend.lastRequest)
            #expect(sent.provider == "naver")
            #expect(sent.kakaoToken == token)
            #expect(world.backend.lastHookStatus == 200)
            #expect(world.backend.lastHookAnswer?["naver"]?["id"] == .string(Self.naverAccount.id))
            // The user sync: no email written, the provider's claims.
            let user = try #require(world.users.user(uid))
            #expect(user.displayName == "naverNick")
            #expect(user.email == nil)
            #expect(user.customAttributes.flatMap { JSONValue.parse(Array($0.utf8)) } == ["provider": "naver", "naver_id": .string(Self.naverAccount.id)])
            #expect(world.identityToolkit.acceptedTokens == 1)
            // The cache: the hook's check and a second login asked Naver no more.
            let again = try await Self.exchange(world, token, "naver")
            #expect(again.json?["firebase"]?["is_new_user"] == .bool(false))
            #expect(world.naver.calls == 1)
        }
    }

    @Test func naverIsJudgedByResultcodeAsWellAsStatus() async throws {
        var options = TestWorld.Options()
        options.naver = true
        try await TestWorld.with(options) { world async throws in
            let faults: [(NaverStandIn.Fault, Int, String)] = [
                (.resultcode("024", status: 200), 401, "invalid_naver_token"),
                (.resultcode("024", status: 401), 401, "invalid_naver_token"),
                (.resultcode("028", status: 401), 401, "invalid_naver_token"),
                (.resultcode("010", status: 200), 502, "naver_unavailable"),
                (.httpStatus(403), 502, "naver_rejected"),
                (.httpStatus(429), 503, "naver_quota_exceeded"),
                (.httpStatus(500), 502, "naver_unavailable"),
                (.rawBody("<html>"), 502, "naver_unavailable"),
                (.rawBody(#"{"resultcode":"00","message":"success","response":{"id":""}}"#), 401, "invalid_naver_token"),
            ]
            for (fault, status, code) in faults {
                world.naver.setFault(fault)
                let token = world.naver.issueToken(for: Self.naverAccount)
                let reply = try await Self.exchange(world, token, "naver")
                ErrorMappingTests.expectProblem(reply, status, code)
                #expect(!reply.text.contains(token))
                world.naver.setFault(nil)
            }
            let unknown = try await Self.exchange(world, "AAAA-not-a-naver-token", "naver")
            ErrorMappingTests.expectProblem(unknown, 401, "invalid_naver_token")
            // resultcode 010 is named in the detail.
            world.naver.setFault(.resultcode("010", status: 200))
            let named = try await Self.exchange(world, world.naver.issueToken(for: Self.naverAccount), "naver")
            #expect(named.json?["detail"]?.stringValue?.contains("010") == true)
        }
    }

    @Test func naversUnlinkCallbackGoesThroughAPendingStepAndBack() async throws {
        var options = Self.allSteps
        options.configure = { config in
            config.backend.unlinkURL = config.backend.loginCompleteURL.replacing(BackendStandIn.path, with: BackendStandIn.unlinkPath)
        }
        try await TestWorld.with(options) { world async throws in
            world.backend.configureUnlink(secret: TestWorld.hookSecret)
            let token = world.naver.issueToken(for: Self.naverAccount)
            #expect(try await Self.exchange(world, token, "naver").status == 200)
            let uid = "naver:" + Self.naverAccount.id
            world.backend.setUnlinkFault(.httpStatus(500, body: "{}"))
            world.naver.unlink(id: Self.naverAccount.id)
            let reply = try await world.post(
                "/v1/naver/unlink", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: world.naver.unlinkCallbackForm(id: Self.naverAccount.id)
            )
            #expect(reply.status == 204, "\(reply.text)")
            // The backend refuses, so the event waits in the queue (its first attempt ran at once).
            try await Task.sleep(for: .milliseconds(300))
            #expect(world.backend.unlinkNotices.isEmpty)
            world.backend.setUnlinkFault(nil)
            try await LifecycleEndToEndTests.eventually(within: .seconds(8)) { world.backend.unlinkNotices.count == 1 }
            // `uid` is there: step `firebase` found the user (and revoked its sessions) before the backend was told.
            #expect(world.backend.unlinkNotices.first == [
                "event": "unlinked", "uid": .string(uid), "provider": "naver", "provider_id": .string(Self.naverAccount.id),
            ])
            // The cached verification is gone and Naver refuses the token now.
            ErrorMappingTests.expectProblem(try await Self.exchange(world, token, "naver"), 401, "invalid_naver_token")
        }
    }

    // MARK: LINE

    @Test func aLineAccessTokenLoginRunsAllSixSteps() async throws {
        try await TestWorld.with(Self.allSteps) { world async throws in
            let token = world.line.issueToken(for: Self.lineAccount)
            let reply = try await Self.exchange(world, token, "line")
            #expect(reply.status == 200, "\(reply.text)")
            let uid = "line:" + Self.lineAccount.userID
            #expect(reply.json?["uid"] == .string(uid))
            #expect(reply.json?["provider"] == "line")
            #expect(reply.json?["line"] == [
                "id": .string(Self.lineAccount.userID), "display_name": "Brown", "picture_url": "https://profile.line-scdn.net/e2e",
            ])
            #expect(world.backend.lastRequest?.provider == "line")
            #expect(world.backend.lastHookStatus == 200)
            #expect(world.users.user(uid)?.displayName == "Brown")
            #expect(world.line.verifyCalls == 1 && world.line.profileCalls == 1)
        }
    }

    @Test(arguments: [LineStandIn.Signing.es256, .hs256])
    func aLineIDTokenLoginRunsAllSixStepsWithNoCallPerLogin(signing: LineStandIn.Signing) async throws {
        try await TestWorld.with(Self.allSteps) { world async throws in
            let token = world.line.issueIDToken(for: Self.lineAccount, signing: signing)
            let reply = try await Self.exchange(world, token, "line")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["line"]?["email"] == "brown@line.me")
            #expect(world.users.user("line:" + Self.lineAccount.userID)?.email == nil)
            #expect(world.backend.lastHookStatus == 200)
            #expect(world.line.verifyCalls == 0 && world.line.profileCalls == 0)
            #expect(world.line.certsCalls <= 1)
        }
    }

    @Test func aLineTokenOfAnotherChannelIsRefusedWithNoProfileCall() async throws {
        var options = TestWorld.Options()
        options.line = true
        try await TestWorld.with(options) { world async throws in
            let token = world.line.issueToken(for: Self.lineAccount, channelID: "1999999999")
            ErrorMappingTests.expectProblem(try await Self.exchange(world, token, "line"), 401, "line_channel_mismatch")
            #expect(world.line.profileCalls == 0)
            let expired = world.line.issueToken(for: Self.lineAccount)
            world.line.expire(expired)
            ErrorMappingTests.expectProblem(try await Self.exchange(world, expired, "line"), 401, "invalid_line_token")
            world.line.setFault(.httpStatus(429))
            ErrorMappingTests.expectProblem(try await Self.exchange(world, world.line.issueToken(for: Self.lineAccount), "line"), 503, "line_quota_exceeded")
            world.line.setFault(.httpStatus(500))
            ErrorMappingTests.expectProblem(try await Self.exchange(world, world.line.issueToken(for: Self.lineAccount), "line"), 502, "line_unavailable")
            world.line.setFault(nil)
        }
    }

    // MARK: Kakao is unchanged beside them

    @Test func aKakaoLoginBesideThemStillSendsExactlyTheTwoKeys() async throws {
        try await TestWorld.with(Self.allSteps) { world async throws in
            let token = world.validToken()
            let reply = try await world.exchange(token)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["provider"] == nil)
            #expect(world.backend.lastRequest?.provider == nil)
            #expect(world.backend.lastRequest?.kakaoToken == token)
            #expect(world.naver.calls == 0)
        }
    }
}
