import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// The user records (docs/api.md#firebase-user-records) and the Auth Emulator over libcurl, against the strict
/// stand-ins: Google's token endpoint checks the assertion as Google does, the Admin API wants its access token, and
/// Identity Toolkit shares their user store. The rules one by one are `UserSyncTests`, `AccessTokenTests`,
/// `RevocationTests` and `EmulatorTests`.
@Suite("Firebase user records end to end", .serialized)
struct AdminEndToEndTests {
    static func options(_ change: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in }) -> TestWorld.Options {
        var options = TestWorld.Options()
        options.firebase = true
        options.configure = change
        return options
    }

    @Test func aLoginCreatesTheFirebaseUserAndManyLoginsFetchOneAccessToken() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text) \(world.googleToken.lastRejection ?? "") \(world.admin.lastRejection ?? "")")
            #expect(reply.json?["firebase"]?["is_new_user"] == .bool(true))
            let user = try #require(world.users.user("kakao:1234567890"))
            #expect(user.displayName == "Ryan")
            #expect(user.photoURL == "https://k.kakaocdn.net/dn/profile.jpg")
            #expect(user.email == "ryan@example.com" && user.emailVerified)
            for id in Int64(1)...10 {
                #expect(try await world.exchange(world.validToken(id: id)).status == 200)
            }
            #expect(world.googleToken.fetches == 1)
            #expect(world.users.count == 11)

            // The assertion as Google checks it (the stand-in verified the signature with the account's public key).
            let claims = try #require(world.googleToken.lastAssertionPayload)
            #expect(claims["iss"]?.stringValue == world.account.clientEmail)
            #expect(claims["aud"]?.stringValue == world.googleToken.url)
            #expect(claims["scope"]?.stringValue?.split(separator: " ").contains("https://www.googleapis.com/auth/identitytoolkit") == true)
            let iat = try #require(claims["iat"]?.int64Value)
            #expect(claims["exp"]?.int64Value == iat + 3600)
            #expect(world.googleToken.lastAssertionHeader?["kid"]?.stringValue == world.account.privateKeyID)
        }
    }

    @Test func aRepeatedLoginInsideTheCacheWindowMakesNoAdminCall() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            let calls = world.admin.totalCalls
            #expect(calls == 2)
            for _ in 0..<5 { #expect(try await world.exchange(token).status == 200) }
            #expect(world.admin.totalCalls == calls)
        }
    }

    @Test func aDisabledUserIsRefusedBySyncAndByIdentityToolkit() async throws {
        try await TestWorld.with(Self.options()) { world async throws in
            var user = world.users.newUser("kakao:1234567890")
            user.disabled = true
            try world.users.create(user)
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 403, "user_disabled")
            #expect(world.identityToolkit.exchangeCalls == 0)
        }
        try await TestWorld.with(Self.options { $0.firebase.userSync = .off }) { world async throws in
            var user = world.users.newUser("kakao:1234567890")
            user.disabled = true
            try world.users.create(user)
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 403, "user_disabled")
            #expect(world.identityToolkit.lastRejection == "USER_DISABLED")
        }
    }

    @Test func tokenEndpointAndAdminFailuresInBothModes() async throws {
        let invalidGrant = StandInFault.httpStatus(400, body: #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#)
        let denied = StandInFault.httpStatus(
            403, body: #"{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}"#
        )
        for mode in ["best_effort", "required"] {
            try await TestWorld.with(Self.options { $0.firebase.userSync = .init(rawValue: mode)! }) { world async throws in
                world.googleToken.setFault(invalidGrant)
                let refused = try await world.exchange(world.validToken(id: 1))
                world.googleToken.setFault(.httpStatus(503, body: "{}"))
                let down = try await world.exchange(world.validToken(id: 2))
                world.googleToken.setFault(nil)
                world.admin.setFault(denied)
                let forbidden = try await world.exchange(world.validToken(id: 3))
                if mode == "best_effort" {
                    #expect([refused.status, down.status, forbidden.status] as [Int] == [200, 200, 200])
                } else {
                    ErrorMappingTests.expectProblem(refused, 502, "firebase_admin_rejected")
                    #expect(refused.json?["detail"]?.stringValue?.contains("invalid_grant") == true)
                    #expect(!refused.text.contains("Invalid JWT Signature"), "Google's description is for the log only")
                    ErrorMappingTests.expectProblem(down, 502, "firebase_admin_unavailable")
                    ErrorMappingTests.expectProblem(forbidden, 502, "firebase_admin_rejected")
                    #expect(forbidden.json?["detail"]?.stringValue?.contains("PERMISSION_DENIED") == true)
                }
            }
        }
    }

    @Test func checkRevokedRefusesASessionThatBeganBeforeValidSince() async throws {
        var options = Self.options { $0.hook.checkRevoked = true }
        options.hook = true
        try await TestWorld.with(options) { world async throws in
            let kakao = world.validToken()
            let login = try await world.exchange(kakao)
            let idToken = try #require(login.json?["firebase"]?["id_token"]?.stringValue)
            func hook() async throws -> Reply {
                try await world.post(
                    "/v1/login-complete", headers: [("Authorization", "Bearer " + TestWorld.hookSecret)],
                    body: #"{"kakao_token":"\#(kakao)","token":"\#(idToken)"}"#
                )
            }
            #expect(try await hook().status == 200)
            world.users.revokeSessions("kakao:1234567890", validSince: UnixClock.system.now() + 1)
            ErrorMappingTests.expectProblem(try await hook(), 401, "id_token_revoked")
            world.users.disable("kakao:1234567890")
            ErrorMappingTests.expectProblem(try await hook(), 403, "user_disabled")
            try world.users.delete("kakao:1234567890")
            ErrorMappingTests.expectProblem(try await hook(), 401, "invalid_id_token")
        }
    }

    /// The emulator path of the Identity Toolkit stand-in: `Bearer owner`, no token fetch, unsigned ID tokens the hook
    /// takes.
    @Test func againstTheEmulator() async throws {
        var options = TestWorld.Options()
        options.backend = true
        // The emulator's host is only known once the stand-ins listen; the world points it there.
        options.configure = { config in
            let port = URL(string: config.firebase.identityToolkitURL)?.port ?? 0
            config.firebase.emulatorHost = "127.0.0.1:\(port)"
        }
        try await TestWorld.with(options) { world async throws in
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(world.googleToken.fetches == 0)
            #expect(world.admin.lastAuthorization == "Bearer owner")
            #expect(world.users.user("kakao:1234567890")?.displayName == "Ryan")
            let idToken = try #require(reply.json?["firebase"]?["id_token"]?.stringValue)
            #expect(idToken.hasSuffix("."), "the emulator's ID tokens are unsigned")
            // Step 6: the backend asked the hook, which accepted the unsigned token.
            #expect(reply.json?["login"]?["status"] == .int(200))
            #expect(world.backend.lastHookStatus == 200)
        }
    }
}
