import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns
import Testing
import Upstreams
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// The Firebase Auth Emulator (docs/api.md#the-auth-emulator), as the Admin SDKs honour it.
@Suite("Auth Emulator")
struct EmulatorTests {
    static let uid = "kakao:1234567890"

    static func options(_ host: String = "127.0.0.1:9099") -> RouterWorld.Options {
        var options = RouterWorld.Options()
        options.firebase = true
        options.hook = true
        options.configure = { $0.firebase.emulatorHost = host }
        return options
    }

    static func unsigned(_ payload: [String: any Sendable], header: [String: any Sendable] = ["alg": "none", "typ": "JWT"]) throws -> String {
        let headerJSON = try #require(JSONValue(any: header)).serialized
        let payloadJSON = try #require(JSONValue(any: payload)).serialized
        return Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON) + "."
    }

    @Test func adminCallsUseOwnerAndNoAccessTokenIsFetched() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            #expect(world.googleTokens.fetches == 0)
            #expect(!world.admin.scopes.isEmpty)
            #expect(world.admin.scopes.allSatisfy { $0.bearer == "owner" })
        }
    }

    @Test func theHookAcceptsUnsignedEmulatorTokensAndStillChecksTheirClaims() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let now = UnixClock.system.now()
            let good = SecureTokenKeys.idTokenPayload(projectID: world.projectID, uid: Self.uid, now: now)
            func hook(_ idToken: String) async throws -> Reply {
                try await world.post(
                    "/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)],
                    body: #"{"kakao_token":"\#(world.validToken())","token":"\#(idToken)"}"#
                )
            }
            let accepted = try await hook(try Self.unsigned(good))
            #expect(accepted.status == 200, "\(accepted.text)")
            var wrongAudience = good
            wrongAudience["aud"] = "another-project"
            ErrorMappingTests.expectProblem(try await hook(try Self.unsigned(wrongAudience)), 401, "invalid_id_token")
            var wrongIssuer = good
            wrongIssuer["iss"] = "https://securetoken.google.com/another-project"
            ErrorMappingTests.expectProblem(try await hook(try Self.unsigned(wrongIssuer)), 401, "invalid_id_token")
            var expired = good
            expired["exp"] = now - 10
            ErrorMappingTests.expectProblem(try await hook(try Self.unsigned(expired)), 401, "invalid_id_token")
            var otherUser = good
            otherUser["sub"] = "kakao:1"
            ErrorMappingTests.expectProblem(try await hook(try Self.unsigned(otherUser)), 401, "token_mismatch")
            // Signed tokens still verify as usual.
            #expect(try await hook(try world.idToken(uid: Self.uid)).status == 200)
        }
    }

    @Test func outsideEmulatorModeUnsignedTokensAreRefused() async throws {
        var options = RouterWorld.Options()
        options.hook = true
        try await RouterWorld.with(options) { world async throws in
            let payload = SecureTokenKeys.idTokenPayload(projectID: world.projectID, uid: Self.uid, now: UnixClock.system.now())
            let reply = try await world.post(
                "/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)],
                body: #"{"kakao_token":"\#(world.validToken())","token":"\#(try Self.unsigned(payload))"}"#
            )
            ErrorMappingTests.expectProblem(reply, 401, "invalid_id_token")
        }
    }

    @Test func readinessAndTheFirstLogLineSaySo() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let ready = try await world.get("/readyz")
            #expect(ready.status == 200)
            #expect(ready.json?["firebase_auth_emulator"] == "127.0.0.1:9099")
            let first = try #require(world.logs.lines.first)
            #expect(first.contains("Firebase Auth Emulator") && first.contains("127.0.0.1:9099"), "\(first)")
        }
    }

    @Test func theEmulatorURLIsTheAdminSDKs() {
        var config = BridgeConfig()
        config.firebase.emulatorHost = "localhost:9099"
        #expect(config.firebase.effectiveIdentityToolkitURL == "http://localhost:9099/identitytoolkit.googleapis.com")
        config.firebase.emulatorHost = ""
        #expect(config.firebase.effectiveIdentityToolkitURL == "https://identitytoolkit.googleapis.com")
    }

    @Test func aRemoteEmulatorIsRefusedUnlessAllowed() throws {
        let base = "kakao: {app_id: 1}\nfirebase: {service_account_file: /x.json, emulator_host: \"10.0.0.5:9099\"}\n"
        #expect(throws: ConfigError.self) { try ConfigLoader.parse(yaml: base, environment: [:]) }
        do {
            _ = try ConfigLoader.parse(yaml: base, environment: [:])
        } catch {
            #expect(error.description.contains("firebase.emulator_host"))
            #expect(error.description.contains("emulator_allow_remote"))
        }
        let allowed = try ConfigLoader.parse(yaml: base, environment: ["BRIDGE_FIREBASE_EMULATOR_ALLOW_REMOTE": "true"])
        #expect(allowed.firebase.emulatorHost == "10.0.0.5:9099")
        for loopback in ["127.0.0.1:9099", "localhost:9099", "[::1]:9099", "127.1.2.3:1"] {
            let config = try ConfigLoader.parse(
                yaml: "kakao: {app_id: 1}\nfirebase: {service_account_file: /x.json}\n",
                environment: ["FIREBASE_AUTH_EMULATOR_HOST": loopback]
            )
            #expect(config.firebase.emulatorHost == loopback)
        }
        for malformed in ["127.0.0.1", "http://127.0.0.1:9099", "127.0.0.1:port", ":9099"] {
            #expect(throws: ConfigError.self, "\(malformed)") {
                try ConfigLoader.parse(yaml: "kakao: {app_id: 1}\nfirebase: {service_account_file: /x.json}\n",
                                       environment: ["FIREBASE_AUTH_EMULATOR_HOST": malformed])
            }
        }
    }
}
