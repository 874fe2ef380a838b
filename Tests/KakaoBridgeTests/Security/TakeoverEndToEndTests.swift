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

/// The two account takeovers of the third security round (issue 27), end to end through the real server over libcurl
/// against the strict stand-ins: an ID token refused at the exchange taken at the legacy route out of the shared cache,
/// and linking by email handing a Kakao user of this service to another Kakao user with a recycled address.
@Suite("Account takeovers: a refused ID token at the legacy route, linking by a recycled email", .serialized)
struct TakeoverEndToEndTests {
    /// An ID token, signed by the Kakao stand-in for the test app, with the given nonce.
    private func idToken(_ world: TestWorld, nonce: String?, id: Int64 = OIDC.user.id) throws -> String {
        try world.kakao.oidcKeys.signIDToken(
            payload: KakaoOIDCKeys.idTokenPayload(
                for: StandIns.KakaoAccount(id: id, nickname: "Ryan"), audience: OIDC.audience, nonce: nonce,
                now: Int64(Date().timeIntervalSince1970) - 5
            )
        )
    }

    private func nonce(_ world: TestWorld) async throws -> String {
        try #require(try await world.get("/v1/kakao/nonce").json?["nonce"]?.stringValue)
    }

    /// Whatever made the exchange refuse the token, the legacy route refuses it too, and asks neither Kakao nor the
    /// cache.
    @Test func anIDTokenRefusedAtTheExchangeIsRefusedAtTheLegacyRouteWithoutAskingKakao() async throws {
        try await TestWorld.with(OIDC.on()) { world in
            let used = try idToken(world, nonce: try await nonce(world))
            #expect(try await world.exchange(used).status == 200, "the first use of a fresh nonce logs in")
            let refusedAtExchange: [(String, String)] = [
                ("no nonce", try idToken(world, nonce: nil)),
                ("a forged nonce", try idToken(world, nonce: "forged-nonce-value")),
                ("a nonce already used", used),
            ]
            for (why, token) in refusedAtExchange {
                let exchange = try await world.exchange(token)
                #expect(exchange.status == 401, "\(why): \(exchange.text)")
                #expect(exchange.code == "invalid_kakao_id_token", "\(why)")
                let legacy = try await world.get("/v1/kakao/" + token)
                #expect(legacy.status == 401, "\(why): \(legacy.text)")
                #expect(legacy.code == "invalid_kakao_token", "\(why)")
            }
            #expect(world.kakao.apiCalls == 0, "no Kakao API call for any ID token")
        }
    }

    /// An ID token issued before the user's unlink webhook: refused at the exchange, and at the legacy route as well.
    @Test func anIDTokenIssuedBeforeTheUnlinkIsRefusedAtTheLegacyRoute() async throws {
        var options = OIDC.on(requireNonce: false)
        options.unlink = true
        try await TestWorld.with(options) { world in
            let token = try idToken(world, nonce: nil)
            #expect(try await world.exchange(token).status == 200, "verified and cached before the unlink")
            #expect(try await world.unlinkWebhook(userID: OIDC.user.id).status == 200)
            // A later second: a verification begun after the unlink's second may be cached again, and must still never
            // serve the legacy route.
            try await Task.sleep(for: .milliseconds(1100))
            let exchange = try await world.exchange(token)
            #expect(exchange.code == "invalid_kakao_id_token", "\(exchange.text)")
            let legacy = try await world.get("/v1/kakao/" + token)
            #expect(legacy.status == 401, "\(legacy.text)")
            #expect(legacy.code == "invalid_kakao_token")
        }
    }

    /// Kakao user A logs in and the service creates `kakao:A` with A's verified email. The address is recycled: Kakao
    /// user B now shows it valid and verified. B logs in with linking on: B gets `kakao:B`, without the email, and A's
    /// account is untouched; the hook refuses B's Kakao token with A's ID token.
    @Test func aRecycledAddressNeverHandsOneKakaoUsersAccountToAnother() async throws {
        var options = TestWorld.Options()
        options.backend = true
        options.configure = { $0.linking.byVerifiedEmail = true }
        try await TestWorld.with(options) { world in
            let shared = "recycled@example.com"
            let first = try await world.exchange(world.validToken(id: 111, email: shared))
            #expect(first.status == 200, "\(first.text)")
            #expect(first.json?["uid"] == .string("kakao:111"))
            #expect(world.users.user("kakao:111")?.email == shared)
            let firstIDToken = try #require(first.json?["firebase"]?["id_token"]?.stringValue)

            let tokenB = world.validToken(id: 222, email: shared)
            let second = try await world.exchange(tokenB)
            #expect(second.status == 200, "\(second.text)")
            #expect(second.json?["uid"] == .string("kakao:222"), "B is never signed in as A")
            let customToken = try #require(second.json?["custom_token"]?.stringValue)
            #expect(customToken.split(separator: ".").count == 3)
            let accountB = try #require(world.users.user("kakao:222"))
            #expect(accountB.email == nil, "created without the address that A's account holds")
            #expect(accountB.disabled == false)
            let accountA = try #require(world.users.user("kakao:111"))
            #expect(accountA.customAttributes == nil, "A's claims are not rewritten to B's id")
            #expect(accountA.email == shared)

            let hook = try await world.post(
                "/v1/login-complete", headers: [("Authorization", "Bearer " + TestWorld.hookSecret)],
                body: #"{"kakao_token":"\#(tokenB)","token":"\#(firstIDToken)"}"#
            )
            #expect(hook.status == 401, "\(hook.text)")
            #expect(hook.code == "token_mismatch")
        }
    }
}
