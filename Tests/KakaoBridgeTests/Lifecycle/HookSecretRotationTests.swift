import BridgeSupport
import Foundation
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// A hook secret rotated without downtime (docs/configuration.md#rotating-the-hook-secret): while `hook.secret` lists
/// two, the backend may send either on the hook and the revoke route; the service's own calls carry the first.
@Suite struct HookSecretRotationTests {
    static let next = "next-hook-secret-0123456789abcdef-rotated"

    @Test func everySecretOfTheListOpensTheHookAndTheRevokeRouteAndNoOtherDoes() async throws {
        let options = RouterWorld.Options(hook: true, configure: { $0.hook.secrets = [Self.next, RouterWorld.hookSecret] })
        try await RouterWorld.with(options) { world in
            for secret in [Self.next, RouterWorld.hookSecret] {
                let bearer = [("Authorization", "Bearer " + secret)]
                // Past the secret, the body is read: an empty object is the caller's mistake, not a refusal.
                let hook = try await world.post("/v1/login-complete", headers: bearer, body: "{}")
                #expect(hook.status == 400 && hook.code == "invalid_request", "\(hook.text)")
                let revoke = try await world.post("/v1/users/revoke", headers: bearer, body: #"{"uid":"kakao:nobody"}"#)
                #expect(revoke.status == 404, "\(revoke.text)")
            }
            for secret in ["", Self.next + "x", String(Self.next.dropLast()), Self.next + "," + RouterWorld.hookSecret] {
                let bearer = [("Authorization", "Bearer " + secret)]
                #expect(try await world.post("/v1/login-complete", headers: bearer, body: "{}").code == "unauthorized", "\(secret)")
                #expect(try await world.post("/v1/users/revoke", headers: bearer, body: "{}").code == "unauthorized", "\(secret)")
            }
        }
    }

    /// The unlink notice is the service's own call: it carries the first secret, which the backend stand-in requires.
    @Test func theServiceSendsTheFirstSecretOnItsOwnCalls() async throws {
        let first = TestWorld.Options(unlink: true, configure: { $0.hook.secrets = [TestWorld.hookSecret, Self.next] })
        try await TestWorld.with(first) { world async throws in
            #expect(try await world.unlinkWebhook(userID: 1_234_567_890).status == 200)
            #expect(world.backend.unlinkNotices.count == 1)
        }
        // The backend does not know the other one yet: its notice is refused (and retried later), the webhook still 200.
        let second = TestWorld.Options(unlink: true, configure: { $0.hook.secrets = [Self.next, TestWorld.hookSecret] })
        try await TestWorld.with(second) { world async throws in
            #expect(try await world.unlinkWebhook(userID: 1_234_567_890).status == 200)
            #expect(world.backend.unlinkNotices.isEmpty)
        }
    }
}
