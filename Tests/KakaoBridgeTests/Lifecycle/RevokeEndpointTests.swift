import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import Upstreams
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// `POST /v1/users/revoke` (docs/api.md#post-v1usersrevoke): "log out everywhere" for backends without an
/// Admin SDK, followed by `hook.check_revoked` refusing the sessions it ended.
@Suite("Revoke endpoint")
struct RevokeEndpointTests {
    static let uid = "kakao:1234567890"

    static func options(hook: Bool = true) -> RouterWorld.Options {
        var options = RouterWorld.Options()
        options.hook = hook
        options.configure = { config in
            config.hook.checkRevoked = true
            config.firebase.userSync = .off
        }
        return options
    }

    static func revoke(_ world: RouterWorld, body: String = #"{"uid":"kakao:1234567890"}"#, secret: String = RouterWorld.hookSecret) async throws -> Reply {
        try await world.post("/v1/users/revoke", headers: [("Authorization", "Bearer " + secret)], body: body)
    }

    @Test func itIsOffWithTheHook() async throws {
        try await RouterWorld.with(Self.options(hook: false)) { world async throws in
            let reply = try await Self.revoke(world)
            #expect(reply.status == 404)
            #expect(reply.code == "not_found")
        }
    }

    @Test func itTakesTheHookSecretAndAUID() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let wrong = try await Self.revoke(world, secret: "not-the-secret-not-the-secret-not-the-secret")
            #expect(wrong.status == 401)
            #expect(wrong.code == "unauthorized")
            for body in ["", "[]", #"{"uid":""}"#, #"{"uid":5}"#, #"{"user":"kakao:1"}"#, #"{"uid":"\#(String(repeating: "a", count: 129))"}"#] {
                let reply = try await Self.revoke(world, body: body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.code == "invalid_request")
            }
            #expect(world.admin.calls.isEmpty)
        }
    }

    @Test func anUnknownUIDIs404() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let reply = try await Self.revoke(world)
            #expect(reply.status == 404)
            #expect(reply.code == "not_found")
            #expect(reply.isProblem)
        }
    }

    @Test func revokingSetsValidSinceAndTheHookThenRefusesTheOldIDToken() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let now = UnixClock.system.now()
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, validSince: now - 1000))
            let kakao = world.validToken()
            let idToken = try world.idToken(uid: Self.uid) { $0["auth_time"] = now - 10 }
            let body = #"{"kakao_token":"\#(kakao)","token":"\#(idToken)"}"#
            let hookHeaders = [("Authorization", "Bearer " + RouterWorld.hookSecret)]
            #expect(try await world.post("/v1/login-complete", headers: hookHeaders, body: body).status == 200)

            let reply = try await Self.revoke(world)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string(Self.uid))
            let validSince = try #require(reply.json?["valid_since"]?.intValue)
            #expect(validSince >= now)
            #expect(world.admin.user(Self.uid)?.validSince == validSince)

            let after = try await world.post("/v1/login-complete", headers: hookHeaders, body: body)
            #expect(after.status == 401)
            #expect(after.code == "id_token_revoked")
        }
    }

    @Test func otherMethodsAre405() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let reply = try await world.get("/v1/users/revoke")
            #expect(reply.status == 405)
            #expect(reply.header("allow") == "POST")
        }
    }
}
