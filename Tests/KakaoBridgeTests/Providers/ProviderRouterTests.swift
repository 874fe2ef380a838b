import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import HTTPTypes
import StandIns
import StateStore
import Testing
import Upstreams
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Naver and LINE beside Kakao (docs/api.md#providers) at the router's depth, with in-memory upstreams:
/// the `provider` parameter, every refusal, the answers' shape, the hook's two body shapes and Naver's unlink callback.
@Suite("Naver and LINE at the router: every refusal, before any upstream call where it must be")
struct ProviderRouterTests {
    static let naverUser = NaverUser(id: "NaVeR-iD_0123456789", nickname: "naverNick", name: "Kim", profileImageURL: "https://phinf.pstatic.net/a.png", email: "kim@naver.com")
    static let lineUser = LineUser(id: "U0123456789abcdef0123456789abcdef", displayName: "Brown", pictureURL: "https://profile.line-scdn.net/x")
    static let lineAccount = LineStandIn.Account(
        userID: lineUser.id, displayName: lineUser.displayName, pictureURL: lineUser.pictureURL, email: "brown@line.me"
    )

    static var both: RouterWorld.Options {
        var options = RouterWorld.Options()
        options.naver = true
        options.line = true
        return options
    }

    static func exchange(_ world: RouterWorld, _ token: String, query: String) async throws -> Reply {
        try await world.get("/v1/token-exchange?" + query, headers: [("Authorization", "Bearer " + token)])
    }

    // MARK: The parameter

    @Test(arguments: ["provider=apple", "provider=Naver", "provider=", "provider=naver&provider=line", "provider=%6Eaver%00"])
    func anUnknownProviderIs400NamingTheParameterBeforeAnyCall(query: String) async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let reply = try await Self.exchange(world, world.naver.issue(Self.naverUser), query: query)
            ErrorMappingTests.expectProblem(reply, 400, "invalid_request")
            #expect(reply.json?["detail"]?.stringValue?.contains("`provider`") == true, "\(reply.text)")
            #expect(world.naver.calls == 0 && world.line.calls == 0 && world.kakao.calls == 0)
        }
    }

    @Test(arguments: ["naver", "line"])
    func aProviderThatIsOffIs400BeforeAnyCall(provider: String) async throws {
        try await RouterWorld.with { world async throws in
            let reply = try await Self.exchange(world, "some-token", query: "provider=" + provider)
            ErrorMappingTests.expectProblem(reply, 400, "invalid_request")
            #expect(reply.json?["detail"]?.stringValue?.contains("`provider` names \(provider)") == true, "\(reply.text)")
            #expect(world.naver.calls == 0 && world.line.calls == 0)
        }
    }

    @Test func kakaoIsTheDefaultAndItsAnswerNamesNoProvider() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let implicit = try await world.exchange(world.validToken())
            let explicit = try await Self.exchange(world, world.validToken(), query: "provider=kakao")
            for reply in [implicit, explicit] {
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply.json?["provider"] == nil)
                #expect(reply.json?["kakao"]?["id"] == .int(1_234_567_890))
                #expect(reply.json?["uid"] == "kakao:1234567890")
            }
        }
    }

    // MARK: Naver

    @Test func aNaverLoginMintsForNaverUIDWithoutAnEmailAndWithItsClaims() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let reply = try await Self.exchange(world, world.naver.issue(Self.naverUser), query: "provider=naver")
            #expect(reply.status == 200, "\(reply.text)")
            let uid = "naver:" + Self.naverUser.id
            #expect(reply.json?["uid"] == .string(uid))
            #expect(reply.json?["provider"] == "naver")
            #expect(reply.json?["kakao"] == nil)
            #expect(reply.json?["naver"] == [
                "id": .string(Self.naverUser.id), "nickname": "naverNick", "name": "Kim",
                "profile_image_url": "https://phinf.pstatic.net/a.png", "email": "kim@naver.com",
            ])
            let claims = try #require(Self.payload(reply.json?["custom_token"]?.stringValue)?["claims"])
            #expect(claims == ["provider": "naver", "naver_id": .string(Self.naverUser.id)])
            // The user sync: the nickname and picture, never Naver's unverified email; the provider's claims.
            let user = try #require(world.admin.user(uid))
            #expect(user.displayName == "naverNick")
            #expect(user.photoURL == "https://phinf.pstatic.net/a.png")
            #expect(user.email == nil)
            let attributes = JSONValue.parse(Array((user.customAttributes ?? "").utf8))
            #expect(attributes == ["provider": "naver", "naver_id": .string(Self.naverUser.id)])
        }
    }

    @Test func loginsAreCountedByProviderWithNoTokenInALabel() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = world.naver.issue(Self.naverUser)
            #expect(try await Self.exchange(world, token, query: "provider=naver").status == 200)
            _ = try await Self.exchange(world, "AAAAnaver-token-refused", query: "provider=naver")
            #expect(try await Self.exchange(world, world.line.issue(Self.lineUser), query: "provider=line").status == 200)
            let metrics = try await world.get("/metrics").text
            for series in [#"kakao_bridge_logins_total{provider="naver",outcome="ok"}"#, #"kakao_bridge_logins_total{provider="naver",outcome="refused"}"#,
                           #"kakao_bridge_logins_total{provider="line",outcome="ok"}"#, #"kakao_bridge_cache_total{cache="naver",result="miss"}"#] {
                #expect(metrics.contains(series), "\(series) missing")
            }
            #expect(!metrics.contains(token) && !metrics.contains(Self.naverUser.id))
        }
    }

    @Test func aNaverNameStandsInForAMissingNickname() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = world.naver.issue(NaverUser(id: "12345", name: "Kim"))
            #expect(try await Self.exchange(world, token, query: "provider=naver").status == 200)
            #expect(world.admin.user("naver:12345")?.displayName == "Kim")
        }
    }

    @Test func aNaverLoginNeverLinksByEmail() async throws {
        var options = Self.both
        options.configure = { $0.linking.byVerifiedEmail = true }
        try await RouterWorld.with(options) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: "password-user", email: "kim@naver.com", emailVerified: true))
            let reply = try await Self.exchange(world, world.naver.issue(Self.naverUser), query: "provider=naver")
            #expect(reply.json?["uid"] == .string("naver:" + Self.naverUser.id), "\(reply.text)")
            #expect(world.admin.user("password-user")?.customAttributes == nil)
        }
    }

    @Test func aNaverRefusalIsItsProblemAndNamesNoToken() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = "AAAAnaver-token-that-naver-no-longer-accepts"
            let reply = try await Self.exchange(world, token, query: "provider=naver")
            ErrorMappingTests.expectProblem(reply, 401, "invalid_naver_token")
            #expect(!reply.text.contains(token))
            for problem in [Problem.naverRejected("403"), .naverQuotaExceeded(), .naverUnavailable("5xx")] {
                let refused = world.naver.provider.issue(.failure(problem))
                ErrorMappingTests.expectProblem(try await Self.exchange(world, refused, query: "provider=naver"), Int(problem.status.code), problem.code.rawValue)
            }
        }
    }

    @Test func aDisabledNaverUserGetsNoCustomToken() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: "naver:" + Self.naverUser.id, disabled: true))
            let reply = try await Self.exchange(world, world.naver.issue(Self.naverUser), query: "provider=naver")
            ErrorMappingTests.expectProblem(reply, 403, "user_disabled")
        }
    }

    @Test func aNaverVerificationIsCachedAndSharedLikeKakaos() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = world.naver.issue(Self.naverUser)
            async let first = Self.exchange(world, token, query: "provider=naver")
            async let second = Self.exchange(world, token, query: "provider=naver")
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            #expect(try await Self.exchange(world, token, query: "provider=naver").status == 200)
            #expect(world.naver.calls == 1)
        }
    }

    // MARK: LINE

    @Test func aLineAccessTokenLogsInAsLineUID() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let reply = try await Self.exchange(world, world.line.issue(Self.lineUser), query: "provider=line")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string("line:" + Self.lineUser.id))
            #expect(reply.json?["provider"] == "line")
            #expect(reply.json?["line"] == [
                "id": .string(Self.lineUser.id), "display_name": "Brown", "picture_url": "https://profile.line-scdn.net/x",
            ])
            let claims = try #require(Self.payload(reply.json?["custom_token"]?.stringValue)?["claims"])
            #expect(claims == ["provider": "line", "line_id": .string(Self.lineUser.id)])
            #expect(world.admin.user("line:" + Self.lineUser.id)?.displayName == "Brown")
        }
    }

    @Test func aLineVerificationIsNeverTrustedPastLINEsExpiry() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = world.line.issue(Self.lineUser)
            world.line.expiresIn = 0
            #expect(try await Self.exchange(world, token, query: "provider=line").status == 200)
            #expect(try await Self.exchange(world, token, query: "provider=line").status == 200)
            #expect(world.line.calls == 2)
            world.line.expiresIn = 3600
            #expect(try await Self.exchange(world, token, query: "provider=line").status == 200)
            #expect(try await Self.exchange(world, token, query: "provider=line").status == 200)
            #expect(world.line.calls == 3)
        }
    }

    @Test func aLineAccessTokenOfAnotherChannelIsMismatched() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = world.line.provider.issue(.failure(.lineChannelMismatch()))
            ErrorMappingTests.expectProblem(try await Self.exchange(world, token, query: "provider=line"), 401, "line_channel_mismatch")
        }
    }

    @Test(arguments: [LineStandIn.Signing.es256, .hs256])
    func aLineIDTokenIsVerifiedLocally(signing: LineStandIn.Signing) async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = world.line.standIn.issueIDToken(for: Self.lineAccount, signing: signing)
            let reply = try await Self.exchange(world, token, query: "provider=line")
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["line"]?["email"] == "brown@line.me")
            #expect(world.line.calls == 0)
            // LINE's email is shown, never written into Firebase.
            #expect(world.admin.user("line:" + Self.lineUser.id)?.email == nil)
        }
    }

    @Test func aLineIDTokenThatBreaksARuleIsRefusedNamingIt() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let standIn = world.line.standIn
            let now = Int64(Date().timeIntervalSince1970)
            let cases: [(String, String)] = [
                (standIn.issueIDToken(for: Self.lineAccount, signing: .es256Foreign), "signature"),
                (standIn.issueIDToken(for: Self.lineAccount, signing: .none), "alg"),
                (standIn.issueIDToken(for: Self.lineAccount, audience: "1999999999"), "aud"),
                (standIn.issueIDToken(for: Self.lineAccount, issuedAt: now - 7200), "exp"),
                (standIn.issueIDToken(for: Self.lineAccount, issuedAt: now + 600), "iat"),
                (standIn.issueIDToken(for: LineStandIn.Account(userID: "U0123456789ABCDEF0123456789ABCDEF")), "sub"),
                (standIn.issueIDToken(for: Self.lineAccount, extraHeader: ["kid": "unknown-kid"]), "kid"),
                (standIn.issueIDToken(for: Self.lineAccount, extraHeader: ["alg": "RS256"]), "alg"),
                (standIn.issueIDToken(for: Self.lineAccount, extraHeader: ["crit": ["exp"]]), "crit"),
            ]
            for (token, rule) in cases {
                let reply = try await Self.exchange(world, token, query: "provider=line")
                ErrorMappingTests.expectProblem(reply, 401, "invalid_line_id_token")
                #expect(reply.json?["detail"]?.stringValue?.contains(rule) == true, "\(rule): \(reply.text)")
            }
            #expect(world.line.calls == 0)
        }
    }

    @Test func anHS256LineIDTokenNeedsTheChannelSecret() async throws {
        var options = Self.both
        options.configure = { $0.line.channelSecret = "" }
        try await RouterWorld.with(options) { world async throws in
            let token = world.line.standIn.issueIDToken(for: Self.lineAccount, signing: .hs256)
            let reply = try await Self.exchange(world, token, query: "provider=line")
            ErrorMappingTests.expectProblem(reply, 401, "invalid_line_id_token")
            #expect(reply.json?["detail"]?.stringValue?.contains("line.channel_secret") == true)
        }
    }

    @Test func anotherProvidersIDTokenIsALineAccessTokenToLINE() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            // Three segments with another issuer are not a LINE ID token: LINE is asked, and refuses it.
            let token = world.line.standIn.issueIDToken(for: Self.lineAccount, issuer: "https://kauth.kakao.com")
            ErrorMappingTests.expectProblem(try await Self.exchange(world, token, query: "provider=line"), 401, "invalid_line_token")
            #expect(world.line.calls == 1)
        }
    }

    // MARK: The hook's two shapes

    @Test func theHookTakesAProviderShapedBody() async throws {
        var options = Self.both
        options.hook = true
        try await RouterWorld.with(options) { world async throws in
            let uid = "naver:" + Self.naverUser.id
            let token = world.naver.issue(Self.naverUser)
            let body = #"{"provider":"naver","provider_token":"\#(token)","token":"\#(try world.idToken(uid: uid))"}"#
            let reply = try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)], body: body)
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string(uid))
            #expect(reply.json?["provider"] == "naver")
            #expect(reply.json?["naver"]?["id"] == .string(Self.naverUser.id))
            #expect(reply.json?["claims"]?["sub"] == .string(uid))

            let other = #"{"provider":"naver","provider_token":"\#(token)","token":"\#(try world.idToken(uid: "naver:someone-else"))"}"#
            let mismatch = try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)], body: other)
            ErrorMappingTests.expectProblem(mismatch, 401, "token_mismatch")

            let lineToken = world.line.issue(Self.lineUser)
            let lineBody = #"{"provider":"line","provider_token":"\#(lineToken)","token":"\#(try world.idToken(uid: "line:" + Self.lineUser.id))"}"#
            let line = try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)], body: lineBody)
            #expect(line.status == 200, "\(line.text)")
            #expect(line.json?["line"]?["id"] == .string(Self.lineUser.id))
        }
    }

    @Test(arguments: [
        #"{"provider":"apple","provider_token":"t","token":"x"}"#,
        #"{"provider":"naver","token":"x"}"#,
        #"{"provider":"naver","provider_token":"","token":"x"}"#,
        #"{"provider":7,"provider_token":"t","token":"x"}"#,
    ])
    func aBadProviderBodyIsInvalid(body: String) async throws {
        var options = Self.both
        options.hook = true
        try await RouterWorld.with(options) { world async throws in
            let reply = try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)], body: body)
            ErrorMappingTests.expectProblem(reply, 400, "invalid_request")
            #expect(world.naver.calls == 0)
        }
    }

    @Test func theHookRefusesAProviderThatIsOff() async throws {
        var options = RouterWorld.Options()
        options.hook = true
        try await RouterWorld.with(options) { world async throws in
            let body = #"{"provider":"naver","provider_token":"t","token":"\#(try world.idToken(uid: "naver:1"))"}"#
            let reply = try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)], body: body)
            ErrorMappingTests.expectProblem(reply, 400, "invalid_request")
        }
    }

    // MARK: Naver's unlink callback

    static let naverSigner = NaverStandIn(clientID: RouterWorld.naverClientID, clientSecret: RouterWorld.naverClientSecret)

    static func callback(_ world: RouterWorld, _ form: String) async throws -> Reply {
        try await world.post("/v1/naver/unlink", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: form)
    }

    @Test func withoutTheClientSecretTheCallbackIs404() async throws {
        var options = Self.both
        options.configure = { $0.naver.clientSecret = "" }
        try await RouterWorld.with(options) { world async throws in
            ErrorMappingTests.expectProblem(try await Self.callback(world, Self.naverSigner.unlinkCallbackForm(id: "x")), 404, "not_found")
        }
    }

    @Test func aValidCallbackIsQueuedAnswered204AndRevokesTheUser() async throws {
        var options = Self.both
        options.hook = true
        options.configure = { $0.backend.unlinkURL = "http://127.0.0.1:9/never-called" }
        try await RouterWorld.with(options) { world async throws in
            let uid = "naver:" + Self.naverUser.id
            world.admin.seed(FirebaseUserRecord(uid: uid, displayName: "naverNick", validSince: 1000))
            let reply = try await Self.callback(world, Self.naverSigner.unlinkCallbackForm(id: Self.naverUser.id))
            #expect(reply.status == 204, "\(reply.text)")
            #expect(reply.text.isEmpty)
            #expect(try await world.retryDueUnlinks { try await world.unlinkEvents(.done).count == 1 })
            let event = try #require(try await world.unlinkEvents(.done).first)
            #expect(event.provider == "naver")
            #expect(event.providerID == Self.naverUser.id)
            #expect(event.uid == uid)
            #expect(try #require(world.admin.user(uid)?.validSince) > 1000)
            #expect(world.unlinks.notices == [UnlinkNotice(uid: uid, provider: .naver, providerID: Self.naverUser.id)])
        }
    }

    @Test func everyRefusedCallbackIsTheSame401AndRecordsNothing() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let now = Int64(Date().timeIntervalSince1970)
            let valid = Self.naverSigner.unlinkCallbackForm(id: Self.naverUser.id)
            let otherClient = NaverStandIn(clientID: "anotherClient", clientSecret: RouterWorld.naverClientSecret)
            let forms = [
                Self.naverSigner.unlinkCallbackForm(id: "x", secret: "not-the-secret"),
                Self.naverSigner.unlinkCallbackForm(id: "x", timestamp: now - 600),
                Self.naverSigner.unlinkCallbackForm(id: "x", timestamp: now + 600),
                otherClient.unlinkCallbackForm(id: "x"),
                valid.replacing("signature=", with: "signature=A"),
                valid.replacing("timestamp=", with: "timestamp=1"),
                "clientId=\(RouterWorld.naverClientID)",
                "",
            ]
            var details: Set<String> = []
            for form in forms {
                let reply = try await Self.callback(world, form)
                ErrorMappingTests.expectProblem(reply, 401, "unauthorized")
                details.insert(reply.json?["detail"]?.stringValue ?? "")
            }
            #expect(details == [NaverUnlink.refusedDetail])
            #expect(try await world.shared.store.queueCounts() == AccountEventCounts(pending: 0, failed: 0))
            #expect(try await world.unlinkEvents(.done).isEmpty)
            // A replay of a valid callback is refused the same way, and recorded once.
            #expect(try await Self.callback(world, valid).status == 204)
            let replay = try await Self.callback(world, valid)
            ErrorMappingTests.expectProblem(replay, 401, "unauthorized")
            #expect(replay.json?["detail"]?.stringValue == NaverUnlink.refusedDetail)
            // Its fields in another order are the same callback.
            let fields = valid.split(separator: "&")
            let reordered = (fields.dropFirst() + fields.prefix(1)).joined(separator: "&")
            ErrorMappingTests.expectProblem(try await Self.callback(world, reordered), 401, "unauthorized")
            let recorded = try await world.unlinkEvents(.pending).count + world.unlinkEvents(.done).count
            #expect(recorded == 1)
        }
    }

    @Test func aCallbackDropsTheCachedVerification() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let token = world.naver.issue(Self.naverUser)
            #expect(try await Self.exchange(world, token, query: "provider=naver").status == 200)
            #expect(try await Self.callback(world, Self.naverSigner.unlinkCallbackForm(id: Self.naverUser.id)).status == 204)
            // Naver withdrew the token too; the cache must not answer for it any more.
            _ = try await Self.exchange(world, token, query: "provider=naver")
            #expect(world.naver.calls == 2)
        }
    }

    @Test func anotherInstancesNaverMarkDropsTheUserRecordHereToo() async throws {
        try await RouterWorld.with(Self.both) { world async throws in
            let uid = "naver:" + Self.naverUser.id
            #expect(try await Self.exchange(world, world.naver.issue(Self.naverUser), query: "provider=naver").status == 200)
            let cache = try #require(world.features()?.userCache)
            #expect(cache.inStepUID(uid: uid, with: SyncedProfile(Self.naverUser)) == uid)
            // As another instance records it: only the mark's key, in the store; this one follows the store's marks.
            try await world.shared.store.setUnlinkMark(kakaoID: Self.naverUser.markKey, at: UnixClock.system.now())
            let deadline = ContinuousClock.now + .seconds(5)
            while cache.inStepUID(uid: uid, with: SyncedProfile(Self.naverUser)) != nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(cache.inStepUID(uid: uid, with: SyncedProfile(Self.naverUser)) == nil)
            #expect(Self.naverUser.markKey < 0)
        }
    }

    // MARK: Hygiene

    @Test func noProviderTokenEmailOrSecretReachesALogLine() async throws {
        var options = Self.both
        options.hook = true
        try await RouterWorld.with(options) { world async throws in
            let naverToken = world.naver.issue(Self.naverUser)
            let lineToken = world.line.issue(Self.lineUser)
            let idToken = world.line.standIn.issueIDToken(for: Self.lineAccount)
            let refused = "AAAAnaver-token-refused-0123456789"
            _ = try await Self.exchange(world, naverToken, query: "provider=naver")
            _ = try await Self.exchange(world, lineToken, query: "provider=line")
            _ = try await Self.exchange(world, idToken, query: "provider=line")
            _ = try await Self.exchange(world, refused, query: "provider=naver")
            _ = try await Self.callback(world, Self.naverSigner.unlinkCallbackForm(id: Self.naverUser.id, secret: "forged"))
            let text = world.logs.lines.joined(separator: "\n")
            #expect(!text.isEmpty)
            for secret in [naverToken, lineToken, idToken, refused, "kim@naver.com", "brown@line.me", RouterWorld.naverClientSecret] {
                #expect(!text.contains(secret), "\(secret) in the logs")
            }
        }
    }

    static func payload(_ token: String?) -> JSONValue? {
        guard let token, let parts = JWTEncoding.split(token) else { return nil }
        return JSONValue.parse(parts.payload)
    }
}
