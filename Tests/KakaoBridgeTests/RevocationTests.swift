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

/// `hook.check_revoked` (docs/api.md#revocation-on-the-hook), as `verifyIdToken(token, true)`.
@Suite("Revocation on the hook")
struct RevocationTests {
    static let uid = "kakao:1234567890"

    static func options(checkRevoked: Bool = true) -> RouterWorld.Options {
        var options = RouterWorld.Options()
        options.hook = true
        options.configure = { config in
            config.hook.checkRevoked = checkRevoked
            // The hook's own lookups are what is counted here.
            config.firebase.userSync = .off
        }
        return options
    }

    static func call(_ world: RouterWorld, authTime: Int64? = nil) async throws -> Reply {
        let kakao = world.validToken()
        let idToken = try world.idToken(uid: uid) { payload in
            if let authTime { payload["auth_time"] = authTime }
        }
        return try await world.post(
            "/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)],
            body: #"{"kakao_token":"\#(kakao)","token":"\#(idToken)"}"#
        )
    }

    @Test func aLiveSessionPassesAndEveryCallLooksTheUserUp() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let now = UnixClock.system.now()
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, validSince: now - 100))
            #expect(try await Self.call(world, authTime: now - 10).status == 200)
            #expect(try await Self.call(world, authTime: now - 10).status == 200)
            #expect(world.admin.calls == [.lookUp(.uid(Self.uid)), .lookUp(.uid(Self.uid))])
        }
    }

    @Test func aSessionOlderThanValidSinceIsRevoked() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let now = UnixClock.system.now()
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, validSince: now - 5))
            ErrorMappingTests.expectProblem(try await Self.call(world, authTime: now - 6), 401, "id_token_revoked")
            // The same second is not earlier.
            #expect(try await Self.call(world, authTime: now - 5).status == 200)
        }
    }

    @Test func aMissingUserIsAnInvalidIDToken() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let reply = try await Self.call(world)
            ErrorMappingTests.expectProblem(reply, 401, "invalid_id_token")
            #expect(reply.json?["detail"]?.stringValue?.contains("no such user") == true)
        }
    }

    @Test func aDisabledUserIsRefused() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, disabled: true))
            ErrorMappingTests.expectProblem(try await Self.call(world), 403, "user_disabled")
        }
    }

    @Test func anAdminFailureFailsTheHook() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.fail(with: .firebaseAdminUnavailable("The Admin API answered accounts:lookup with HTTP 503."))
            ErrorMappingTests.expectProblem(try await Self.call(world), 502, "firebase_admin_unavailable")
        }
    }

    @Test func offByDefault() async throws {
        try await RouterWorld.with(Self.options(checkRevoked: false)) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, disabled: true, validSince: UnixClock.system.now() + 100))
            #expect(try await Self.call(world).status == 200)
            #expect(world.admin.calls.isEmpty)
        }
    }
}
