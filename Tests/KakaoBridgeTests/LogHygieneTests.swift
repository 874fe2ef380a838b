import BridgeJSON
import Foundation
import OpenSSLCrypto
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// No token, secret, email or key material in any log line the service writes during a full run.
@Suite struct LogHygieneTests {
    @Test func aFullRunLeaksNothingIntoTheLogs() async throws {
        var options = TestWorld.Options()
        options.backend = true
        try await TestWorld.with(options) { world in
            let kakaoToken = world.validToken(email: "secret.person@example.com")
            let exchanged = try await world.exchange(kakaoToken)
            let legacy = try await world.get("/v1/kakao/" + kakaoToken)
            _ = try await world.exchange(world.otherAppToken())
            _ = try await world.get("/v1/kakao/" + world.otherAppToken())
            _ = try await world.get("/v1/token-exchange?access_token=" + kakaoToken)
            _ = try await world.post(
                "/v1/login-complete", headers: [("Authorization", "Bearer wrong-secret-value-0123456789abcdef")],
                body: #"{"kakao_token":"\#(kakaoToken)","token":"x.y.z"}"#
            )
            var secrets = [kakaoToken, "secret.person@example.com", TestWorld.hookSecret, TestWorld.apiKey]
            for key in ["custom_token"] {
                if let value = exchanged.json?[key]?.stringValue { secrets.append(value) }
            }
            if let idToken = exchanged.json?["firebase"]?["id_token"]?.stringValue { secrets.append(idToken) }
            if let refresh = exchanged.json?["firebase"]?["refresh_token"]?.stringValue { secrets.append(refresh) }
            secrets.append(contentsOf: world.account.privateKey.pkcs8PEM.split(separator: "\n").map(String.init).filter { $0.count > 20 })
            _ = legacy
            let lines = world.bridge.logs.lines
            #expect(!lines.isEmpty)
            for line in lines {
                for secret in secrets {
                    #expect(!line.contains(secret), "log line leaks a secret: \(line.prefix(200))")
                }
                #expect(!line.contains("PRIVATE KEY"))
            }
        }
    }
}
