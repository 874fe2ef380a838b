import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// Every rule of a Kakao ID token (docs/api.md#kakao-id-tokens) at the router's depth, with the fake JWKS endpoint: each
/// broken rule is 401 `invalid_kakao_id_token` with a detail naming it, and no call ever goes to Kakao's API.
@Suite struct KakaoIDTokenRuleTests {
    /// Exchanges `token` and expects the refusal whose detail contains `rule`.
    private func expectRefused(
        _ world: RouterWorld, _ token: String, _ rule: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let reply = try await world.exchange(token)
        #expect(reply.status == 401, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.code == "invalid_kakao_id_token", "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.isProblem, sourceLocation: sourceLocation)
        let detail = reply.json?["detail"]?.stringValue ?? ""
        #expect(detail.contains(rule), "detail: \(detail)", sourceLocation: sourceLocation)
        #expect(world.kakao.calls == 0, "an ID token must never be sent to Kakao", sourceLocation: sourceLocation)
    }

    /// Polls `condition` for up to a second (background work the request did not wait for).
    private static func eventually(_ condition: @Sendable () -> Bool) async -> Bool {
        var tries = 0
        while !condition(), tries < 100 {
            try? await Task.sleep(for: .milliseconds(10))
            tries += 1
        }
        return condition()
    }

    // MARK: A good token

    @Test func aLoginWithAnIDTokenMakesNoKakaoCall() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let reply = try await world.exchange(try await world.kakaoLogin())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"]?.stringValue == "kakao:1234567890")
            #expect(reply.json?["kakao"]?["id"]?.int64Value == 1_234_567_890)
            #expect(reply.json?["kakao"]?["nickname"]?.stringValue == "Ryan")
            #expect(reply.json?["kakao"]?["email"]?.stringValue == "ryan@example.com")
            #expect(reply.json?["kakao"]?["email_verified"]?.boolValue == true)
            #expect(reply.json?["kakao"]?["profile_image_url"]?.stringValue == "https://k.kakaocdn.net/dn/profile.jpg")
            #expect(reply.json?["custom_token"]?.stringValue?.isEmpty == false)
            #expect(world.kakao.calls == 0)
            #expect(world.kakaoKeys.fetchCount == 1)
        }
    }

    @Test func theProfileComesFromTheClaimsAndOmitsWhatIsMissing() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let bare = StandIns.KakaoAccount(id: 9_223_372_036_854_775_807)
            let reply = try await world.exchange(try world.kakaoIDToken(bare, nonce: try await world.nonce()))
            #expect(reply.status == 200, "\(reply.text)")
            // Exact for the largest 64-bit id.
            #expect(reply.json?["kakao"]?["id"]?.int64Value == Int64.max)
            #expect(reply.json?["kakao"]?["email"] == nil)
            #expect(reply.json?["kakao"]?["email_verified"] == nil)
            #expect(reply.json?["kakao"]?["nickname"] == nil)
        }
    }

    @Test func anyConfiguredAppKeyIsAnAudience() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let token = try world.kakaoIDToken(nonce: try await world.nonce()) { $0["aud"] = OIDC.otherAudience }
            #expect(try await world.exchange(token).status == 200)
            let both = try world.kakaoIDToken(nonce: try await world.nonce()) { $0["aud"] = [OIDC.audience, OIDC.otherAudience] }
            #expect(try await world.exchange(both).status == 200)
        }
    }

    @Test func plainHTTPPicturesOnKakaosCDNBecomeHTTPS() {
        #expect(KakaoIDTokenClaimRules.secureImageURL("http://k.kakaocdn.net/dn/a.jpg") == "https://k.kakaocdn.net/dn/a.jpg")
        #expect(KakaoIDTokenClaimRules.secureImageURL("http://example.com/a.jpg") == "http://example.com/a.jpg")
        #expect(KakaoIDTokenClaimRules.secureImageURL("http://kakaocdn.net.evil.com/a.jpg") == "http://kakaocdn.net.evil.com/a.jpg")
    }

    // MARK: Header and signature

    @Test func theHeaderMustSayRS256() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let nonce = try await world.nonce()
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, signing: .none), "alg must be RS256")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, signing: .hs256WithCertificate), "alg must be RS256")
            let kid = try world.kakaoKeys.keys.currentKID
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, header: ["kid": kid, "typ": "JWT"]), "alg must be RS256")
            try await expectRefused(
                world, try world.kakaoIDToken(nonce: nonce, header: ["alg": "RS512", "kid": kid]), "alg must be RS256"
            )
            try await expectRefused(
                world, try world.kakaoIDToken(nonce: nonce, header: ["alg": "RS256", "kid": kid, "crit": ["exp"]]), "crit"
            )
        }
    }

    @Test func theKidMustNameAKeyInKakaosJWKS() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let nonce = try await world.nonce()
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, header: ["alg": "RS256"]), "no kid")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, header: ["alg": "RS256", "kid": ""]), "no kid")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, header: ["alg": "RS256", "kid": 7]), "no kid")
            try await expectRefused(
                world, try world.kakaoIDToken(nonce: nonce, header: ["alg": "RS256", "kid": "not-a-kakao-key"]), "kid names no current key"
            )
        }
    }

    @Test func aKeyInTheHeaderIsNeverTrusted() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let attacker = try RSAPrivateKey.generate()
            let (n, e) = attacker.publicKey.jwkComponents
            let header: [String: any Sendable] = [
                "alg": "RS256", "kid": try world.kakaoKeys.keys.currentKID,
                "jwk": ["kty": "RSA", "n": n, "e": e], "jku": "https://evil.example/jwks.json",
            ]
            let token = try world.kakaoIDToken(nonce: try await world.nonce(), header: header, signing: .privateKey(attacker))
            try await expectRefused(world, token, "signature is invalid")
        }
    }

    @Test func theSignatureMustVerify() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let nonce = try await world.nonce()
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, signing: .corruptedSignature), "signature is invalid")
            // Signed by a key nobody published, under the current kid: the wrong key.
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce, signing: .unpublishedKey), "signature is invalid")
        }
    }

    @Test func theTokenMustBeAJWT() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            try await expectRefused(world, "a.b.c", "not a JWT")
            try await expectRefused(world, "eyJhbGciOiJSUzI1NiJ9..c2ln", "not a JWT")
            let notJSON = Base64URL.encode("not json") + "." + Base64URL.encode("{}") + ".c2ln"
            try await expectRefused(world, notJSON, "header is not a JSON object")
            let kid = try world.kakaoKeys.keys.currentKID
            let payloadNotJSON = Base64URL.encode("{\"alg\":\"RS256\",\"kid\":\"\(kid)\"}") + "." + Base64URL.encode("[1]") + ".c2ln"
            try await expectRefused(world, payloadNotJSON, "payload is not a JSON object")
        }
    }

    // MARK: Claims

    @Test func theIssuerMustBeKakao() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let nonce = try await world.nonce()
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["iss"] = "https://kauth.kakao.com/" }, "iss")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["iss"] = nil }, "iss")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["iss"] = "https://accounts.google.com" }, "iss")
        }
    }

    @Test func theAudienceMustBeAConfiguredAppKey() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let nonce = try await world.nonce()
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["aud"] = "another-apps-key" }, "aud")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["aud"] = nil }, "aud")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["aud"] = [OIDC.audience, "another"] }, "aud")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["aud"] = [String]() }, "aud")
        }
    }

    @Test func theTokenMustNotHaveExpired() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let now = Int64(Date().timeIntervalSince1970)
            let nonce = try await world.nonce()
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["exp"] = now - 1 }, "expired (exp)")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["exp"] = nil }, "exp must be")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["exp"] = "\(now + 600)" }, "exp must be")
        }
    }

    @Test func theTokenMustNotBeIssuedInTheFuture() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let now = Int64(Date().timeIntervalSince1970)
            let nonce = try await world.nonce()
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["iat"] = now + 120 }, "issued in the future (iat)")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["iat"] = nil }, "iat must be")
        }
    }

    @Test func theClockSkewAppliesToBothTimes() async throws {
        var options = OIDC.on()
        let previous = options.configure
        options.configure = { previous(&$0); $0.firebase.clockSkewSeconds = 30 }
        try await RouterWorld.with(options) { world in
            let now = Int64(Date().timeIntervalSince1970)
            let late = try world.kakaoIDToken(nonce: try await world.nonce()) { $0["exp"] = now - 10 }
            #expect(try await world.exchange(late).status == 200)
            let early = try world.kakaoIDToken(nonce: try await world.nonce()) { $0["iat"] = now + 10 }
            #expect(try await world.exchange(early).status == 200)
            try await expectRefused(world, try world.kakaoIDToken(nonce: try await world.nonce()) { $0["exp"] = now - 120 }, "exp")
        }
    }

    @Test func theSubjectMustBeAPositiveDecimalKakaoID() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let nonce = try await world.nonce()
            for bad: any Sendable in ["", "0", "-5", "+5", "012", "12a", "1.5", "99999999999999999999", "9223372036854775808", 1234, " 12"] {
                try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["sub"] = bad }, "sub must be a Kakao user id")
            }
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["sub"] = nil }, "sub must be a Kakao user id")
        }
    }

    // MARK: Nonces

    @Test func theNonceRouteAnswersANonceForTenMinutes() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let reply = try await world.get("/v1/kakao/nonce")
            #expect(reply.status == 200)
            #expect(reply.header("cache-control") == "no-store")
            #expect(reply.json?["expires_in"]?.int64Value == 600)
            let first = reply.json?["nonce"]?.stringValue ?? ""
            #expect(first.count >= 40)
            #expect(try await world.nonce() != first)
            #expect(try await world.post("/v1/kakao/nonce", body: "{}").status == 405)
        }
    }

    @Test func aNonceIsMissingWhenRequired() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            try await expectRefused(world, try world.kakaoIDToken(nonce: nil), "has no nonce")
            try await expectRefused(world, try world.kakaoIDToken(nonce: nil) { $0["nonce"] = 42 }, "nonce must be a string")
        }
    }

    @Test func aForgedNonceIsRefused() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let nonce = try await world.nonce()
            var bytes = Base64URL.decode(nonce)!
            bytes[12] ^= 0x01
            try await expectRefused(world, try world.kakaoIDToken(nonce: Base64URL.encode(bytes)), "not issued by this service")
            // Pushing the expiry out breaks the HMAC too.
            var later = Base64URL.decode(nonce)!
            later[7] &+= 1
            try await expectRefused(world, try world.kakaoIDToken(nonce: Base64URL.encode(later)), "not issued by this service")
            try await expectRefused(world, try world.kakaoIDToken(nonce: "app-made-nonce-1234"), "not issued by this service")
            // Issued by another instance with another key.
            let other = KakaoNonces(secret: Array(repeating: 7, count: 32), clock: .system).issue().nonce
            try await expectRefused(world, try world.kakaoIDToken(nonce: other), "not issued by this service")
        }
    }

    @Test func anExpiredNonceIsRefused() async throws {
        let clock = ManualUnixClock()
        var options = OIDC.on()
        options.clock = clock.clock
        try await RouterWorld.with(options) { world in
            let nonce = try await world.nonce()
            clock.advance(601)
            let token = try world.kakaoIDToken(nonce: nonce, issuedAt: clock.clock.now() - 5)
            try await expectRefused(world, token, "nonce has expired")
        }
    }

    @Test func aReplayedNonceIsRefusedEvenWhileTheTokenIsCached() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            let token = try await world.kakaoLogin()
            #expect(try await world.exchange(token).status == 200)
            try await expectRefused(world, token, "nonce was already used")
            // Another token carrying the same nonce: the nonce, not the token, is single-use.
            let nonce = try await world.nonce()
            #expect(try await world.exchange(try world.kakaoIDToken(nonce: nonce)).status == 200)
            try await expectRefused(world, try world.kakaoIDToken(nonce: nonce) { $0["auth_time"] = 1 }, "nonce was already used")
            #expect(world.kakaoKeys.fetchCount == 1)
        }
    }

    @Test func withoutRequireNonceATokenWithoutNonceIsAccepted() async throws {
        try await RouterWorld.with(OIDC.on(requireNonce: false)) { world in
            let token = try world.kakaoIDToken(nonce: nil)
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.exchange(token).status == 200)
            #expect(world.kakao.calls == 0)
        }
    }

    // MARK: Keys: unknown kid, rotation, stale keys

    @Test func anUnknownKidRefetchesAtMostOnceAMinute() async throws {
        let clock = ManualUnixClock()
        var options = OIDC.on(requireNonce: false)
        options.clock = clock.clock
        let keys = KakaoOIDCKeys()
        try await RouterWorld.with(options, kakaoKeys: keys, kakaoKeysMaxAge: 3600) { world in
            let first = try await world.exchange(try world.kakaoIDToken(nonce: nil))
            #expect(first.status == 200, "\(first.text)")
            #expect(world.kakaoKeys.fetchCount == 1)
            for index in 0..<5 {
                let header: [String: any Sendable] = ["alg": "RS256", "kid": "made-up-\(index)"]
                try await expectRefused(world, try world.kakaoIDToken(nonce: nil, header: header), "kid names no current key")
            }
            #expect(world.kakaoKeys.fetchCount == 1)
            clock.advance(61)
            try await expectRefused(world, try world.kakaoIDToken(nonce: nil, header: ["alg": "RS256", "kid": "made-up"]), "kid")
            #expect(world.kakaoKeys.fetchCount == 2)
        }
    }

    @Test func aRotatedKeyIsFetchedAndTheOldOneKeepsWorking() async throws {
        let clock = ManualUnixClock()
        var options = OIDC.on(requireNonce: false)
        options.clock = clock.clock
        let keys = KakaoOIDCKeys()
        try await RouterWorld.with(options, kakaoKeys: keys, kakaoKeysMaxAge: 3600) { world in
            let before = try world.kakaoIDToken(nonce: nil) { $0["auth_time"] = 1 }
            #expect(try await world.exchange(before).status == 200)
            let old = try keys.currentKey
            try keys.rotate()
            clock.advance(61)
            // Signed with the new key: its kid is unknown, which refetches (the last fetch is over a minute old).
            let after = try world.kakaoIDToken(nonce: nil)
            #expect(try await world.exchange(after).status == 200)
            #expect(world.kakaoKeys.fetchCount == 2)
            let stillOld = try world.kakaoIDToken(nonce: nil, signing: .kid(old.kid)) { $0["auth_time"] = 2 }
            #expect(try await world.exchange(stillOld).status == 200)
            // Rotated out of the JWKS: refused once the keys were fetched again.
            try keys.rotate(keepingPrevious: false)
            clock.advance(61)
            #expect(try await world.exchange(try world.kakaoIDToken(nonce: nil) { $0["auth_time"] = 3 }).status == 200)
            #expect(world.kakaoKeys.fetchCount == 3)
            let retired = try world.kakaoIDToken(
                nonce: nil, header: ["alg": "RS256", "kid": old.kid], signing: .privateKey(old.privateKey)
            ) { $0["auth_time"] = 4 }
            try await expectRefused(world, retired, "kid names no current key")
        }
    }

    @Test func staleKeysServeWhileTheJWKSEndpointFails() async throws {
        let clock = ManualUnixClock()
        var options = OIDC.on(requireNonce: false)
        options.clock = clock.clock
        try await RouterWorld.with(options, kakaoKeys: KakaoOIDCKeys(), kakaoKeysMaxAge: 60) { world in
            #expect(try await world.exchange(try world.kakaoIDToken(nonce: nil) { $0["auth_time"] = 1 }).status == 200)
            world.kakaoKeys.setFailing(true)
            clock.advance(600)
            let tokens = try (Int64(2)..<5).map { index in try world.kakaoIDToken(nonce: nil) { $0["auth_time"] = index } }
            for token in tokens {
                let reply = try await world.exchange(token)
                #expect(reply.status == 200, "\(reply.text)")
            }
            // The stale answer started a refetch in the background; it failed, and the keys kept serving.
            let fetched = await Self.eventually { world.kakaoKeys.fetchCount >= 2 }
            #expect(fetched)
        }
    }

    @Test func withNoKeysAtAllAFailingJWKSEndpointIsKakaoUnavailable() async throws {
        try await RouterWorld.with(OIDC.on(requireNonce: false), kakaoKeys: KakaoOIDCKeys()) { world in
            world.kakaoKeys.setFailing(true)
            let reply = try await world.exchange(try world.kakaoIDToken(nonce: nil))
            #expect(reply.status == 502)
            #expect(reply.code == "kakao_unavailable")
        }
    }

    // MARK: The hook, unlinked users, switched off

    @Test func theHookAcceptsTheIDTokenThatALoginProduced() async throws {
        try await RouterWorld.with(OIDC.on(.init(backend: true))) { world in
            let token = try await world.kakaoLogin()
            let reply = try await world.exchange(token)
            #expect(reply.status == 200, "\(reply.text)")
            // Step 6 sent the ID token as kakao_token; the backend asked the hook, which accepted it (the nonce is not
            // used up a second time there).
            #expect(world.backend.received.last?.kakaoToken == token)
            #expect(world.backend.lastHookStatus == 200)
            #expect(reply.json?["login"]?["status"]?.int64Value == 200)
            #expect(world.kakao.calls == 0)

            // Called again directly, the hook still accepts it; a forged nonce it does not.
            let idToken = reply.json?["firebase"]?["id_token"]?.stringValue ?? ""
            let hook = try await world.post(
                "/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)],
                body: "{\"kakao_token\":\"\(token)\",\"token\":\"\(idToken)\"}"
            )
            #expect(hook.status == 200, "\(hook.text)")
            #expect(hook.json?["uid"]?.stringValue == "kakao:1234567890")
            let forged = try world.kakaoIDToken(nonce: "forged-nonce-forged-nonce")
            let refused = try await world.post(
                "/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)],
                body: "{\"kakao_token\":\"\(forged)\",\"token\":\"\(idToken)\"}"
            )
            #expect(refused.status == 401)
            #expect(refused.code == "invalid_kakao_id_token")
        }
    }

    @Test func anUnlinkedUsersOlderIDTokenIsRefusedEvenWhenCached() async throws {
        let clock = ManualUnixClock()
        var options = OIDC.on(requireNonce: false)
        options.clock = clock.clock
        try await RouterWorld.with(options) { world in
            let issued = clock.clock.now()
            let token = try world.kakaoIDToken(nonce: nil, issuedAt: issued)
            #expect(try await world.exchange(token).status == 200)
            clock.advance(5)
            world.unlinkedUsers.record(OIDC.user.id)
            try await expectRefused(world, token, "unlinked this app")
            // Issued in the same second as the webhook: still refused (earlier than or equal to).
            try await expectRefused(world, try world.kakaoIDToken(nonce: nil, issuedAt: issued + 5) { $0["auth_time"] = 9 }, "unlinked")
            // A login after the webhook is a new consent.
            clock.advance(1)
            let fresh = try world.kakaoIDToken(nonce: nil, issuedAt: issued + 6)
            #expect(try await world.exchange(fresh).status == 200)
        }
    }

    @Test func switchedOffTheNonceRouteIs404AndNeverTheLegacyRoute() async throws {
        try await RouterWorld.with { world in
            let reply = try await world.get("/v1/kakao/nonce")
            #expect(reply.status == 404)
            #expect(reply.code == "not_found")
            #expect(reply.isProblem)
            #expect(world.kakao.calls == 0)
            // Legacy stays legacy.
            #expect(try await world.get("/v1/kakao/" + world.validToken()).status == 200)
            // An ID token is not taken for an access token either.
            let idToken = try world.kakaoIDToken(nonce: nil)
            let exchange = try await world.exchange(idToken)
            #expect(exchange.status == 401)
            #expect(exchange.code == "invalid_kakao_id_token")
            #expect(world.kakao.calls == 1)
        }
    }

    @Test func switchedOnTheNonceRouteIsNeverTheLegacyRouteEither() async throws {
        try await RouterWorld.with(OIDC.on()) { world in
            #expect(try await world.get("/v1/kakao/nonce").status == 200)
            #expect(world.kakao.calls == 0)
            // The legacy route mints from access tokens only.
            let legacy = try await world.get("/v1/kakao/" + (try world.kakaoIDToken(nonce: nil)))
            #expect(legacy.status == 401)
            #expect(legacy.code == "invalid_kakao_token")
        }
    }
}
