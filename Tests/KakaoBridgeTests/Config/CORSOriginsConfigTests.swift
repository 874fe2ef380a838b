import BridgeSupport
import Foundation
@testable import KakaoBridge
import Testing
import BridgeTestSupport

/// `server.cors_origins` (docs/configuration.md#keys): exact origins as browsers send them, read from YAML and the
/// environment, every problem listed at once, applied on reload.
@Suite struct CORSOriginsConfigTests {
    static func problems(server: String, environment: [String: String] = [:]) -> [String] {
        ConfigFixture.problems(yaml: ConfigFixture.minimal + "\nserver:\n" + server, environment: environment)
    }

    @Test func theOriginsApplyOnReload() {
        var origins = BridgeConfig()
        origins.server.corsOrigins = ["https://app.example.com"]
        #expect(ReloadService.restartOnlyChanges(from: BridgeConfig(), to: origins) == [])
    }

    @Test func corsOriginsAreExactOriginsAsBrowsersSendThem() throws {
        let yaml = ConfigFixture.minimal + "\nserver:\n  cors_origins: [https://app.example.com, \"http://localhost:3000\", \"https://[2001:db8::1]:8443\"]\n"
        #expect(try ConfigLoader.parse(yaml: yaml, environment: [:]).server.corsOrigins
            == ["https://app.example.com", "http://localhost:3000", "https://[2001:db8::1]:8443"])
        let fromEnvironment = try ConfigLoader.parse(
            yaml: ConfigFixture.minimal, environment: ["BRIDGE_SERVER_CORS_ORIGINS": "https://a.example.com, https://b.example.com"]
        )
        #expect(fromEnvironment.server.corsOrigins == ["https://a.example.com", "https://b.example.com"])
        #expect(BridgeConfig().server.corsOrigins.isEmpty)
        for good in ["https://app.example.com", "https://app.example.com:8443", "http://127.0.0.1:5173", "http://[::1]:8080", "http://localhost"] {
            #expect(WebOrigin.problem(good) == nil, "\(good)")
        }
    }

    @Test func anythingABrowserWouldNeverSendIsRefusedWithTheSpellingToUse() {
        let spelling = "scheme://host[:port] as browsers send it in Origin: lower case, no path, no trailing slash"
        let cases: [(String, String)] = [
            ("*", "\"*\" is not allowed: list each web origin exactly (e.g. https://app.example.com)"),
            ("null", "\"null\" is not allowed: list each web origin exactly (e.g. https://app.example.com)"),
            ("app.example.com", "\"app.example.com\" is not an origin: it must start with https:// (e.g. https://app.example.com)"),
            ("https://app.example.com/", "\"https://app.example.com/\" is not an origin (\(spelling))"),
            ("https://app.example.com/login", "\"https://app.example.com/login\" is not an origin (\(spelling))"),
            ("https://user@app.example.com", "\"https://user@app.example.com\" is not an origin (\(spelling))"),
            ("https://", "\"https://\" is not an origin (\(spelling))"),
            ("https://App.Example.com", "\"https://App.Example.com\" is not an origin (\(spelling)): write https://app.example.com"),
            ("https://app.example.com:443", "\"https://app.example.com:443\" is not an origin (\(spelling)): browsers leave the default port out, write https://app.example.com"),
            ("http://localhost:80", "\"http://localhost:80\" is not an origin (\(spelling)): browsers leave the default port out, write http://localhost"),
            ("https://app.example.com:99999", "\"https://app.example.com:99999\" is not an origin (\(spelling)): the port must be 1–65535"),
            ("http://app.example.com", "\"http://app.example.com\" must be https:// (plain http:// only for localhost, 127.0.0.0/8 or [::1], for development)"),
        ]
        for (origin, expected) in cases {
            #expect(WebOrigin.problem(origin) == expected, "\(origin)")
        }
        // Each one, all at once, named by the key.
        let all = Self.problems(server: "  cors_origins: [\"*\", https://app.example.com/]\n")
        #expect(all == [
            "server.cors_origins: \"*\" is not allowed: list each web origin exactly (e.g. https://app.example.com)",
            "server.cors_origins: \"https://app.example.com/\" is not an origin (\(spelling))",
        ])
    }
}
