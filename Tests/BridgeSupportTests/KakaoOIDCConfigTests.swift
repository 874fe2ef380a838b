import BridgeSupport
import Foundation
import Testing

/// `kakao.oidc.*` (docs/configuration.md#keys): nested one level deeper than the other keys, in YAML and as `BRIDGE_*`.
@Suite struct KakaoOIDCConfigTests {
    /// `ConfigTests.minimal` with `oidc` (lines indented by four spaces) under `kakao:`.
    static func yaml(oidc lines: String) -> String {
        "kakao:\n  app_id: 42\n  oidc:\n" + lines + "\nfirebase:\n  service_account_file: /tmp/sa.json\n"
    }

    @Test func defaultsAreOffWithKakaosJWKSAndNoncesRequired() {
        let oidc = BridgeConfig().kakao.oidc
        #expect(oidc.audiences.isEmpty)
        #expect(!oidc.enabled)
        #expect(oidc.jwksURL == "https://kauth.kakao.com/.well-known/jwks.json")
        #expect(oidc.requireNonce)
        #expect(oidc.nonceSecret.isEmpty)
    }

    @Test func nestedYAMLIsRead() throws {
        let config = try ConfigLoader.parse(yaml: Self.yaml(oidc: """
                audiences: [native-key, js-key]
                jwks_url: https://keys.example.com/jwks.json
                require_nonce: false
                nonce_secret: 0123456789abcdef0123456789abcdef
            """), environment: [:])
        #expect(config.kakao.appID == 42)
        #expect(config.kakao.oidc.audiences == ["native-key", "js-key"])
        #expect(config.kakao.oidc.enabled)
        #expect(config.kakao.oidc.jwksURL == "https://keys.example.com/jwks.json")
        #expect(!config.kakao.oidc.requireNonce)
        #expect(config.kakao.oidc.nonceSecret == "0123456789abcdef0123456789abcdef")
    }

    @Test func environmentOverridesTheNestedKeys() throws {
        let config = try ConfigLoader.parse(yaml: ConfigTests.minimal, environment: [
            "BRIDGE_KAKAO_OIDC_AUDIENCES": "native-key, js-key",
            "BRIDGE_KAKAO_OIDC_REQUIRE_NONCE": "false",
            "BRIDGE_KAKAO_OIDC_NONCE_SECRET": String(repeating: "s", count: 32),
            "BRIDGE_KAKAO_OIDC_JWKS_URL": "http://127.0.0.1:9/jwks.json",
        ])
        #expect(config.kakao.oidc.audiences == ["native-key", "js-key"])
        #expect(!config.kakao.oidc.requireNonce)
        #expect(config.kakao.oidc.nonceSecret.count == 32)
        #expect(config.kakao.oidc.jwksURL == "http://127.0.0.1:9/jwks.json")
    }

    @Test func everyProblemIsReportedAtOnceWithoutTheSecret() {
        let secret = "short-secret-value"
        let problems = ConfigTests.problems(yaml: Self.yaml(oidc: """
                audiences: ["", "has space"]
                jwks_url: http://keys.example.com/jwks.json
                nonce_secret: \(secret)
                require_nonce: maybe
                unknown_thing: 1
            """))
        #expect(problems.contains { $0.hasPrefix("kakao.oidc.audiences:") })
        #expect(problems.contains { $0.hasPrefix("kakao.oidc.jwks_url:") && $0.contains("https") })
        #expect(problems.contains { $0.hasPrefix("kakao.oidc.nonce_secret:") && $0.contains("32 bytes") })
        #expect(problems.contains { $0.hasPrefix("kakao.oidc.require_nonce:") })
        #expect(problems.contains { $0.contains("kakao.oidc.unknown_thing") })
        #expect(!problems.joined().contains(secret))
    }

    @Test func theGroupMustBeAMapping() {
        let problems = ConfigTests.problems(yaml: "kakao:\n  app_id: 42\n  oidc: [a]\nfirebase:\n  service_account_file: /tmp/sa.json\n")
        #expect(problems.contains { $0.hasPrefix("kakao.oidc:") && $0.contains("mapping") })
    }
}
