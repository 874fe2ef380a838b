import BridgeSupport
import Foundation
import Testing

/// `naver.*` and `line.*` (docs/configuration.md#keys): off until their id is set, read from YAML and the
/// environment, https-only, their prefixes apart from each other's, every problem listed at once and no secret echoed.
@Suite struct ProvidersConfigTests {
    @Test func bothAreOffByDefaultWithTheDocumentedDefaults() {
        let config = BridgeConfig()
        #expect(!config.naver.enabled && !config.line.enabled)
        #expect(config.naver.apiBaseURL == "https://openapi.naver.com")
        #expect(config.naver.authBaseURL == "https://nid.naver.com")
        #expect(config.naver.uidPrefix == "naver:")
        #expect(config.line.apiBaseURL == "https://api.line.me")
        #expect(config.line.uidPrefix == "line:")
        #expect(config.isOn(.kakao) && !config.isOn(.naver) && !config.isOn(.line))
    }

    @Test func theKeysAreReadFromYAMLAndTheEnvironment() throws {
        let config = try ConfigLoader.parse(yaml: ConfigTests.minimal + """

            naver:
              client_id: naverClient
              uid_prefix: "nv:"
            line:
              channel_id: "1657000000"
            """, environment: ["BRIDGE_NAVER_CLIENT_SECRET": "naver-secret", "BRIDGE_LINE_CHANNEL_SECRET": "line-secret"])
        #expect(config.naver.clientID == "naverClient")
        #expect(config.naver.clientSecret == "naver-secret")
        #expect(config.naver.unlinkCallbackEnabled)
        #expect(config.naver.uidPrefix == "nv:")
        #expect(config.line.channelID == "1657000000")
        #expect(config.line.channelSecret == "line-secret")
        #expect(config.uidPrefix(.naver) == "nv:")
    }

    @Test func everyProblemIsListedAtOnceWithoutTheSecrets() {
        let problems = ConfigTests.problems { config in
            config.naver.clientSecret = "naver-secret-value"
            config.naver.apiBaseURL = "http://openapi.naver.com"
            config.line.channelID = "12ab"
            config.line.apiBaseURL = "http://api.line.me"
            config.line.uidPrefix = ""
        }
        #expect(problems.contains { $0.hasPrefix("naver.api_base_url: must be https://") }, "\(problems)")
        #expect(problems.contains("naver.client_secret: needs naver.client_id"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("line.channel_id: must be the LINE Login channel's id (digits)") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("line.api_base_url: must be https://") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("line.uid_prefix: must not be empty") }, "\(problems)")
        #expect(!problems.joined().contains("naver-secret-value"))
    }

    @Test func twoProvidersNeverShareUIDs() {
        let problems = ConfigTests.problems { config in
            config.naver.clientID = "naverClient"
            config.naver.uidPrefix = "kakao:n"
        }
        #expect(problems.contains { $0.hasPrefix("naver.uid_prefix: must not begin with, or be the beginning of, kakao.uid_prefix") }, "\(problems)")
        // Off, a provider's prefix is not checked against the others.
        #expect(ConfigTests.problems { $0.naver.uidPrefix = "kakao:n" } == [])
    }

    @Test func naversUnlinkCallbackMayBeTheBackendsOnlyUnlinkSource() {
        let problems = ConfigTests.problems { config in
            config.naver.clientID = "naverClient"
            config.naver.clientSecret = "naver-secret"
            config.hook.secrets = [String(repeating: "s", count: 32)]
            config.backend.unlinkURL = "https://backend.example.com/unlinked"
        }
        #expect(problems == [], "\(problems)")
    }
}
