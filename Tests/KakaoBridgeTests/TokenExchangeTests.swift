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

/// Steps 1–3 (docs/api.md#the-six-step-flow). The service's own rules (what the answer holds, the custom token's shape,
/// routes and configuration) run at the router's depth with in-memory upstreams; the tests that hand a minted custom
/// token to the strict Identity Toolkit stand-in (Google accepts it) run end-to-end through libcurl and the loopback
/// stand-ins.
@Suite struct TokenExchangeTests {
    @Test func validTokenBecomesACustomTokenGoogleAccepts() async throws {
        try await TestWorld.with { world in
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200)
            #expect(reply.header("content-type") == "application/json")
            #expect(reply.json?["uid"]?.stringValue == "kakao:1234567890")
            #expect(reply.json?["custom_token_expires_in"]?.int64Value == 3600)
            let kakao = reply.json?["kakao"]
            #expect(kakao?["id"] == .int(1_234_567_890))
            #expect(kakao?["nickname"]?.stringValue == "Ryan")
            #expect(kakao?["email"]?.stringValue == "ryan@example.com")
            #expect(kakao?["email_verified"] == .bool(true))
            #expect(kakao?["profile_image_url"]?.stringValue == "https://k.kakaocdn.net/dn/profile.jpg")
            #expect(reply.json?["firebase"] == nil)
            #expect(reply.json?["login"] == nil)
            try await world.expectGoogleAccepts(reply.json?["custom_token"]?.stringValue)
        }
    }

    @Test func customTokenFollowsSection4() async throws {
        let account = RouterWorld.account.account
        try await RouterWorld.with { world in
            let reply = try await world.exchange(world.validToken())
            let token = try #require(reply.json?["custom_token"]?.stringValue)
            let parts = token.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            #expect(!token.contains("="))
            let headerBytes = try #require(Base64URLTestDecode(parts[0]))
            let header = try #require(JSONValue.parse(headerBytes))
            #expect(header == .object(["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(account.privateKeyID)]))
            let payloadBytes = try #require(Base64URLTestDecode(parts[1]))
            let payload = try #require(JSONValue.parse(payloadBytes))
            #expect(payload["iss"]?.stringValue == account.clientEmail)
            #expect(payload["sub"]?.stringValue == account.clientEmail)
            #expect(payload["aud"]?.stringValue == CustomTokenMinter.audience)
            let iat = try #require(payload["iat"]?.int64Value)
            #expect(payload["exp"]?.int64Value == iat + 3600)
            #expect(payload["uid"]?.stringValue == "kakao:1234567890")
            #expect(payload["claims"] == .object(["provider": .string("kakao"), "kakao_id": .int(1_234_567_890)]))
            #expect(payload["tenant_id"] == nil)
        }
    }

    @Test func ttlAndTenantAndPrefixAreConfigurable() async throws {
        var options = TestWorld.Options()
        options.tenantID = "tenant-a1b2"
        options.configure = { config in
            config.firebase.customTokenTTLSeconds = 600
            config.kakao.uidPrefix = "kk_"
        }
        try await TestWorld.with(options) { world in
            let reply = try await world.exchange(world.validToken(id: 42))
            #expect(reply.status == 200)
            #expect(reply.json?["uid"]?.stringValue == "kk_42")
            #expect(reply.json?["custom_token_expires_in"]?.int64Value == 600)
            try await world.expectGoogleAccepts(reply.json?["custom_token"]?.stringValue)
        }
    }

    @Test func largestKakaoIDSurvivesExactly() async throws {
        try await TestWorld.with { world in
            let reply = try await world.exchange(world.validToken(id: Int64.max))
            #expect(reply.status == 200)
            #expect(reply.text.contains(#""id":9223372036854775807"#))
            #expect(reply.json?["uid"]?.stringValue == "kakao:9223372036854775807")
            try await world.expectGoogleAccepts(reply.json?["custom_token"]?.stringValue)
        }
    }

    /// Kakao's `/v2/user/me` with the email flags Kakao sets (its deprecated `properties` included, which are never
    /// read).
    static func userMe(emailValid: Bool, emailVerified: Bool) -> String {
        #"""
        {"id":1234567890,"connected_at":"2024-01-01T00:00:00Z","properties":{"nickname":"Old"},
         "kakao_account":{"profile":{"nickname":"Ryan","profile_image_url":"https://k.kakaocdn.net/dn/profile.jpg"},
          "has_email":true,"email_needs_agreement":false,"is_email_valid":\#(emailValid),"is_email_verified":\#(emailVerified),
          "email":"ryan@example.com"}}
        """#
    }

    /// The rule lives where Kakao's answer is read (`KakaoMe.user`): Kakao's answer is read as the Kakao client reads
    /// it, and the user it yields goes through the application.
    @Test(arguments: [(false, true), (true, false), (false, false)])
    func emailOnlyWhenValidAndVerified(valid: Bool, verified: Bool) async throws {
        let trusted = try KakaoMe(json: #require(JSONValue.parse(Array(Self.userMe(emailValid: true, emailVerified: true).utf8)))).user
        #expect(trusted.email == "ryan@example.com" && trusted.emailVerified == true)
        let me = try KakaoMe(json: #require(JSONValue.parse(Array(Self.userMe(emailValid: valid, emailVerified: verified).utf8))))
        let user = me.user
        try await RouterWorld.with { world in
            let reply = try await world.exchange(world.kakao.issue(user))
            #expect(reply.status == 200)
            #expect(reply.json?["kakao"]?["email"] == nil)
            #expect(reply.json?["kakao"]?["email_verified"] == nil)
            #expect(reply.json?["kakao"]?["nickname"]?.stringValue == "Ryan")
        }
    }

    @Test func missingProfileFieldsAreOmitted() async throws {
        try await RouterWorld.with { world in
            let reply = try await world.exchange(world.validToken(nickname: nil, email: nil))
            #expect(reply.status == 200)
            #expect(reply.json?["kakao"]?["nickname"] == nil)
            #expect(reply.json?["kakao"]?["email"] == nil)
        }
    }

    @Test func legacyRouteKeepsFieldAppsWorking() async throws {
        try await TestWorld.with { world in
            let kakaoToken = world.validToken()
            let reply = try await world.get("/v1/kakao/" + kakaoToken)
            #expect(reply.status == 200)
            let item = reply.json?["data"].flatMap { if case .array(let items) = $0 { items.first } else { nil } }
            #expect(item?["kakao_token"]?.stringValue == kakaoToken)
            try await world.expectGoogleAccepts(item?["token"]?.stringValue)
        }
    }

    @Test func legacyRouteCanBeSwitchedOff() async throws {
        var options = RouterWorld.Options()
        options.configure = { $0.legacy.enabled = false }
        try await RouterWorld.with(options) { world in
            let reply = try await world.get("/v1/kakao/" + world.validToken())
            #expect(reply.status == 404)
            #expect(reply.code == "not_found")
            #expect(reply.isProblem)
            #expect(world.kakao.calls == 0)
        }
    }

    @Test(arguments: ["access_token", "token", "kakao_token"])
    func tokenInQueryIsRefusedBeforeKakao(name: String) async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            let withHeader = try await world.get(
                "/v1/token-exchange?\(name)=\(token)", headers: [("Authorization", "Bearer " + token)]
            )
            let withoutHeader = try await world.get("/v1/token-exchange?\(name)=\(token)")
            for reply in [withHeader, withoutHeader] {
                #expect(reply.status == 400)
                #expect(reply.code == "invalid_request")
                #expect(reply.isProblem)
            }
            #expect(world.kakao.calls == 0)
        }
    }
}

/// Test-side base64url decoding, independent of the code under test.
func Base64URLTestDecode(_ text: String) -> [UInt8]? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    return Data(base64Encoded: base64).map(Array.init)
}
