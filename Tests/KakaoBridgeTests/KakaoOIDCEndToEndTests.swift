import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// Kakao OpenID Connect end to end (docs/api.md#kakao-id-tokens): the real bridge over libcurl against the Kakao stand-in's
/// JWKS and ID tokens, with all six steps on.
@Suite struct KakaoOIDCEndToEndTests {
    /// What the app does: a nonce from the bridge, then Kakao Login with it (the stand-in signs the ID token).
    private func login(_ world: TestWorld, _ user: StandIns.KakaoAccount = OIDC.user) async throws -> String {
        let reply = try await world.get("/v1/kakao/nonce")
        #expect(reply.status == 200, "\(reply.text)")
        let nonce = try #require(reply.json?["nonce"]?.stringValue)
        return try world.kakao.issueIDToken(for: user, audience: OIDC.audience, nonce: nonce)
    }

    @Test func allSixStepsWithAnIDTokenMakeNoKakaoAPICallAndTheHookAcceptsIt() async throws {
        var options = TestWorld.Options()
        options.backend = true
        try await TestWorld.with(OIDC.on(options)) { world in
            let idToken = try await login(world)
            let reply = try await world.exchange(idToken)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"]?.stringValue == "kakao:1234567890")
            #expect(reply.json?["kakao"]?["email_verified"]?.boolValue == true)
            #expect(reply.json?["firebase"]?["id_token"]?.stringValue != nil)
            #expect(reply.json?["login"]?["status"]?.int64Value == 200)
            // The backend got the ID token as kakao_token and the hook accepted it.
            #expect(world.backend.lastHookStatus == 200)
            #expect(world.backend.lastHookAnswer?["uid"]?.stringValue == "kakao:1234567890")
            #expect(world.kakao.apiCalls == 0)
            #expect(world.kakao.jwksCalls == 1)
            // The user sync wrote the profile from the claims.
            let record = world.users.user("kakao:1234567890")
            #expect(record?.displayName == "Ryan")
            #expect(record?.emailVerified == true)

            // A replay of the same ID token: its nonce is used.
            let replay = try await world.exchange(idToken)
            #expect(replay.status == 401)
            #expect(replay.code == "invalid_kakao_id_token")
            #expect(world.kakao.apiCalls == 0)
        }
    }

    /// OpenID Connect on without nonces, on a clock the test moves.
    private static func options(_ time: ManualUnixClock) -> TestWorld.Options {
        var options = OIDC.on(requireNonce: false)
        options.clock = time.clock
        return options
    }

    /// An ID token of Kakao user `id` issued now on `time`, signed by the Kakao stand-in.
    private static func idToken(_ world: TestWorld, _ id: Int64, at time: ManualUnixClock, signing: IDTokenSigning = .current) throws -> String {
        try world.kakao.oidcKeys.signIDToken(
            payload: KakaoOIDCKeys.idTokenPayload(
                for: StandIns.KakaoAccount(id: id), audience: OIDC.audience, nonce: nil, now: time.clock.now()
            ),
            signing: signing
        )
    }

    @Test func keysRotateAndStaleKeysServeWhileTheJWKSEndpointFails() async throws {
        let time = ManualUnixClock()
        try await TestWorld.with(Self.options(time)) { world in
            // max-age 0 is kept for the cache's floor of a minute; past it every answer is stale, so each step below is
            // decided by the cache's rules once the clock has moved past that minute.
            world.kakao.setJWKSMaxAge(0)
            func token(_ id: Int64, signing: IDTokenSigning = .current) throws -> String {
                try Self.idToken(world, id, at: time, signing: signing)
            }
            #expect(try await world.exchange(try token(1)).status == 200)
            let old = try world.kakao.oidcKeys.currentKID
            try world.kakao.oidcKeys.rotate()
            time.advance(61)
            // Signed with the new key: its kid is unknown and the keys are stale, so they are fetched again.
            let rotated = try await world.exchange(try token(2))
            #expect(rotated.status == 200, "\(rotated.text)")
            // The previous key stays published for tokens signed before the rotation.
            #expect(try await world.exchange(try token(3, signing: .kid(old))).status == 200)
            #expect(world.kakao.jwksCalls >= 2)

            // The JWKS endpoint goes down: the cached keys keep verifying, stale.
            world.kakao.setJWKSFailing(true)
            time.advance(61)
            for id in Int64(4)...6 {
                let reply = try await world.exchange(try token(id))
                #expect(reply.status == 200, "\(reply.text)")
            }
            #expect(world.kakao.apiCalls == 0)
        }
    }

    /// A faulty `max-age=0` must not mean a JWKS fetch per login: the keys are kept a minute all the same
    /// (docs/api.md#kakao-id-tokens).
    @Test func aJWKSAnswerWithMaxAgeZeroIsStillKeptForAMinute() async throws {
        let time = ManualUnixClock()
        try await TestWorld.with(Self.options(time)) { world in
            world.kakao.setJWKSMaxAge(0)
            for id in Int64(1)...5 {
                let reply = try await world.exchange(try Self.idToken(world, id, at: time))
                #expect(reply.status == 200, "\(reply.text)")
                time.advance(10)
            }
            #expect(world.kakao.jwksCalls == 1)
        }
    }
}
