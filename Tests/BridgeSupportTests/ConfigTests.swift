import BridgeJSON
import BridgeSupport
import Foundation
import Testing
import BridgeTestSupport

@Suite("Configuration")
struct ConfigTests {
    static let minimal = ConfigFixture.minimal

    static func problems(yaml: String = minimal, environment: [String: String] = [:]) -> [String] {
        ConfigFixture.problems(yaml: yaml, environment: environment)
    }

    static func problems(_ mutate: (inout BridgeConfig) -> Void) -> [String] { ConfigFixture.problems(mutate) }

    @Test func defaultsMatchTheContract() throws {
        let config = BridgeConfig()
        #expect(config.server.host == "127.0.0.1")
        #expect(config.server.port == 8080)
        #expect(config.server.trustedProxies.isEmpty)
        #expect(config.server.shutdownGraceSeconds == 10)
        #expect(config.kakao.appID == 0)
        #expect(config.kakao.apiBaseURL == "https://kapi.kakao.com")
        #expect(config.kakao.uidPrefix == "kakao:")
        #expect(config.kakao.cacheSeconds == 60)
        #expect(config.firebase.serviceAccountFile == "")
        #expect(config.firebase.projectID == "")
        #expect(config.firebase.webAPIKey == "")
        #expect(config.firebase.identityToolkitURL == "https://identitytoolkit.googleapis.com")
        #expect(
            config.firebase.securetokenCertsURL
                == "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
        #expect(config.firebase.customTokenTTLSeconds == 3600)
        #expect(config.firebase.clockSkewSeconds == 0)
        #expect(config.firebase.tenantID == "")
        #expect(config.backend.loginCompleteURL == "")
        #expect(config.hook.secret == "")
        #expect(config.legacy.enabled)
        #expect(config.upstream.timeoutMS == 5000)
        #expect(config.upstream.maxInFlight == 256)
        #expect(config.rateLimit.perClientPerMinute == 600)
        #expect(config.log.level == "info")
        #expect(config.log.format == "json")

        // The two required keys are the only problems of an all-default configuration.
        #expect(ConfigLoader.validate(config) == [
            "kakao.app_id: required (a positive integer, the numeric id of your Kakao app)",
            "firebase.service_account_file: required (path to the Google service-account JSON key file)",
        ])

        var expected = BridgeConfig()
        expected.kakao.appID = 42
        expected.firebase.serviceAccountFile = "/tmp/sa.json"
        #expect(try ConfigLoader.parse(yaml: Self.minimal, environment: [:]) == expected)
    }

    @Test func fullYAML() throws {
        let yaml = """
            server:
              host: 0.0.0.0
              port: 9090
              trusted_proxies: [10.0.0.0/8, "fd00::/8", 192.168.1.7]
              shutdown_grace_seconds: 30
            kakao:
              app_id: 9007199254740993
              api_base_url: http://127.0.0.1:8081
              uid_prefix: "kk:"
              cache_seconds: 0
            firebase:
              service_account_file: /etc/sa.json
              project_id: my-project
              web_api_key: AIzaExampleKey
              identity_toolkit_url: http://127.0.0.1:8082
              securetoken_certs_url: http://127.0.0.1:8083/certs
              custom_token_ttl_seconds: 600
              clock_skew_seconds: 5
              tenant_id: tenant-1
            backend:
              login_complete_url: https://backend.example.com/login/complete
            hook:
              secret: 0123456789abcdef0123456789abcdef
            legacy:
              enabled: false
            upstream:
              timeout_ms: 2500
              max_in_flight: 8
            rate_limit:
              per_client_per_minute: 0
            log:
              level: debug
              format: text
            """
        let config = try ConfigLoader.parse(yaml: yaml, environment: [:])
        #expect(config.server.host == "0.0.0.0")
        #expect(config.server.port == 9090)
        #expect(config.server.trustedProxies == [CIDR("10.0.0.0/8")!, CIDR("fd00::/8")!, CIDR("192.168.1.7/32")!])
        #expect(config.server.shutdownGraceSeconds == 30)
        #expect(config.kakao.appID == 9_007_199_254_740_993)
        #expect(config.kakao.apiBaseURL == "http://127.0.0.1:8081")
        #expect(config.kakao.uidPrefix == "kk:")
        #expect(config.kakao.cacheSeconds == 0)
        #expect(config.firebase.serviceAccountFile == "/etc/sa.json")
        #expect(config.firebase.projectID == "my-project")
        #expect(config.firebase.webAPIKey == "AIzaExampleKey")
        #expect(config.firebase.identityToolkitURL == "http://127.0.0.1:8082")
        #expect(config.firebase.securetokenCertsURL == "http://127.0.0.1:8083/certs")
        #expect(config.firebase.customTokenTTLSeconds == 600)
        #expect(config.firebase.clockSkewSeconds == 5)
        #expect(config.firebase.tenantID == "tenant-1")
        #expect(config.backend.loginCompleteURL == "https://backend.example.com/login/complete")
        #expect(config.hook.secret == "0123456789abcdef0123456789abcdef")
        #expect(config.legacy.enabled == false)
        #expect(config.upstream.timeoutMS == 2500)
        #expect(config.upstream.maxInFlight == 8)
        #expect(config.rateLimit.perClientPerMinute == 0)
        #expect(config.log.level == "debug")
        #expect(config.log.format == "text")
    }

    @Test func emptyAndNullValuesKeepDefaults() throws {
        let config = try ConfigLoader.parse(
            yaml: Self.minimal + "\nserver:\n  port: ~\nhook:\nlog: {}\n", environment: [:])
        #expect(config.server.port == 8080)
        #expect(config.hook.secret == "")
    }

    @Test func environmentOverridesYAML() throws {
        let config = try ConfigLoader.parse(
            yaml: Self.minimal + "\nserver:\n  port: 9000\n",
            environment: [
                "BRIDGE_KAKAO_APP_ID": "77",
                "BRIDGE_SERVER_PORT": "9100",
                "BRIDGE_SERVER_TRUSTED_PROXIES": "10.0.0.0/8, ::1/128,",
                "BRIDGE_LEGACY_ENABLED": "no",
                "BRIDGE_RATE_LIMIT_PER_CLIENT_PER_MINUTE": "5",
                "BRIDGE_FIREBASE_WEB_API_KEY": "key",
                "BRIDGE_BACKEND_LOGIN_COMPLETE_URL": "http://127.0.0.1:1/done",
                "BRIDGE_UPSTREAM_MAX_IN_FLIGHT": "3",
                "BRIDGE_LOG_FORMAT": "text",
                "PATH": "/usr/bin",  // unrelated variables are ignored
                // Kubernetes service links for a Service named "bridge" are not typos.
                "BRIDGE_SERVICE_HOST": "10.0.0.1",
                "BRIDGE_PORT": "tcp://10.0.0.1:80",
                "BRIDGE_PORT_80_TCP_ADDR": "10.0.0.1",
            ])
        #expect(config.kakao.appID == 77)
        #expect(config.server.port == 9100)
        #expect(config.server.trustedProxies == [CIDR("10.0.0.0/8")!, CIDR("::1")!])
        #expect(config.legacy.enabled == false)
        #expect(config.rateLimit.perClientPerMinute == 5)
        #expect(config.firebase.webAPIKey == "key")
        #expect(config.backend.loginCompleteURL == "http://127.0.0.1:1/done")
        #expect(config.upstream.maxInFlight == 3)
        #expect(config.log.format == "text")
        #expect(config.firebase.serviceAccountFile == "/tmp/sa.json")
    }

    @Test(arguments: [("true", true), ("TRUE", true), ("1", true), ("yes", true), ("false", false), ("0", false), ("No", false)])
    func environmentBooleans(text: String, value: Bool) throws {
        let config = try ConfigLoader.parse(yaml: Self.minimal, environment: ["BRIDGE_LEGACY_ENABLED": text])
        #expect(config.legacy.enabled == value)
    }

    @Test func environmentProblemsNameTheVariable() {
        let problems = Self.problems(environment: [
            "BRIDGE_SERVER_PORT": "http",
            "BRIDGE_LEGACY_ENABLED": "maybe",
            "BRIDGE_UPSTREAM_TIMEOUT_MS": "0",
            "BRIDGE_KAKAO_APPID": "1",
        ])
        #expect(problems.contains("server.port (from BRIDGE_SERVER_PORT): expected an integer, got \"http\""))
        #expect(problems.contains {
            $0.hasPrefix("legacy.enabled (from BRIDGE_LEGACY_ENABLED): expected a boolean")
        })
        #expect(problems.contains("upstream.timeout_ms (from BRIDGE_UPSTREAM_TIMEOUT_MS): must be between 1 and 120000, got 0"))
        #expect(problems.contains("unknown environment variable BRIDGE_KAKAO_APPID (did you mean BRIDGE_KAKAO_APP_ID?)"))
        #expect(problems.count == 4)
    }

    @Test func unknownKeysAreProblems() {
        let problems = Self.problems(yaml: Self.minimal + """

            firebase:
              web_api_kye: x
            kakoa:
              app_id: 1
            """)
        // Duplicate section keys are refused by the YAML reader before key checks; test them separately.
        #expect(problems.count == 1)
        let typo = Self.problems(yaml: """
            kakao:
              app_id: 42
            firebase:
              service_account_file: /tmp/sa.json
              web_api_kye: x
            kakoa:
              app_id: 1
            kakao.app_id: 3
            """)
        #expect(typo.contains("unknown key firebase.web_api_kye (did you mean firebase.web_api_key?)"))
        #expect(typo.contains("unknown key kakoa (did you mean kakao?)"))
        #expect(typo.contains { $0.hasPrefix("unknown key kakao.app_id (keys are nested") })
        #expect(typo.count == 3)
    }

    @Test func wrongTypesNameTheKey() {
        let problems = Self.problems(yaml: """
            server:
              port: eighty
              trusted_proxies: {a: b}
              host: [a, b]
            kakao:
              app_id: 12.5
            firebase:
              service_account_file: /tmp/sa.json
            legacy:
              enabled: sometimes
            upstream: 5
            """)
        #expect(problems.contains("server.port: expected an integer, got \"eighty\""))
        #expect(problems.contains("server.trusted_proxies: expected a list of CIDRs, got a mapping"))
        #expect(problems.contains("server.host: expected a string, got a list"))
        #expect(problems.contains("kakao.app_id: expected an integer, got \"12.5\""))
        #expect(problems.contains { $0.hasPrefix("legacy.enabled: expected a boolean") })
        #expect(problems.contains("upstream: expected a mapping of keys, got a single value"))
        // A key that could not be read is not also reported as "required".
        #expect(!problems.contains { $0.hasPrefix("kakao.app_id: required") })
        #expect(problems.count == 6)
    }

    @Test func malformedYAMLIsOneProblemWithItsPosition() {
        let problems = Self.problems(yaml: "kakao:\n  app_id: [1\nhook:\n  secret: do-not-print-me\n")
        #expect(problems.count == 1)
        #expect(problems[0].hasPrefix("configuration file: not valid YAML at line"))
        #expect(!problems[0].contains("do-not-print-me"))

        #expect(Self.problems(yaml: "- a\n- b\n") == [
            "configuration file: expected a mapping of sections (server:, kakao:, firebase:, …) at the top level"
        ])
    }

    @Test func everyValidationRule() {
        #expect(Self.problems { _ in } == [])
        let cases: [(String, (inout BridgeConfig) -> Void)] = [
            ("kakao.app_id: required (a positive integer, the numeric id of your Kakao app)", { $0.kakao.appID = 0 }),
            ("kakao.app_id: must be a positive integer (the numeric id of your Kakao app), got -3", { $0.kakao.appID = -3 }),
            ("firebase.service_account_file: required (path to the Google service-account JSON key file)",
             { $0.firebase.serviceAccountFile = "" }),
            ("kakao.api_base_url: must be an http:// or https:// URL with a host", { $0.kakao.apiBaseURL = "ftp://kapi.kakao.com" }),
            ("kakao.api_base_url: must be an http:// or https:// URL with a host", { $0.kakao.apiBaseURL = "https://" }),
            ("kakao.api_base_url: must be an http:// or https:// URL with a host", { $0.kakao.apiBaseURL = "kapi.kakao.com" }),
            ("firebase.identity_toolkit_url: must be an http:// or https:// URL with a host",
             { $0.firebase.identityToolkitURL = "http://:80/x" }),
            ("firebase.securetoken_certs_url: must be an http:// or https:// URL with a host",
             { $0.firebase.securetokenCertsURL = "https://host/with space" }),
            ("backend.login_complete_url: must be an http:// or https:// URL with a host", {
                $0.backend.loginCompleteURL = "mailto:x"
                $0.firebase.webAPIKey = "k"
            }),
            ("firebase.custom_token_ttl_seconds: must be between 1 and 3600, got 0", { $0.firebase.customTokenTTLSeconds = 0 }),
            ("firebase.custom_token_ttl_seconds: must be between 1 and 3600, got 3601", { $0.firebase.customTokenTTLSeconds = 3601 }),
            ("firebase.clock_skew_seconds: must be between 0 and 60, got 61", { $0.firebase.clockSkewSeconds = 61 }),
            ("firebase.clock_skew_seconds: must be between 0 and 60, got -1", { $0.firebase.clockSkewSeconds = -1 }),
            ("hook.secret: must be at least 32 bytes, or empty to turn the hook off (generate one with `openssl rand -hex 32`)",
             { $0.hook.secret = String(repeating: "s", count: 31) }),
            ("backend.login_complete_url: needs firebase.web_api_key (step 6 sends the Firebase ID token, which only the step 4 exchange obtains)",
             { $0.backend.loginCompleteURL = "https://backend.example.com/done" }),
            ("kakao.uid_prefix: must not be empty (uids are <prefix><kakao id>, e.g. kakao:1234)", { $0.kakao.uidPrefix = "" }),
            ("kakao.uid_prefix: must be at most 108 UTF-16 code units so that prefix plus a 20-digit Kakao id fits a 128-unit Firebase uid, got 109",
             { $0.kakao.uidPrefix = String(repeating: "p", count: 109) }),
            ("server.port: must be between 0 and 65535 (0 picks a free port), got 65536", { $0.server.port = 65536 }),
            ("server.port: must be between 0 and 65535 (0 picks a free port), got -1", { $0.server.port = -1 }),
            ("server.host: must not be empty (the address to listen on, e.g. 127.0.0.1 or 0.0.0.0)", { $0.server.host = " " }),
            ("log.level: must be one of trace, debug, info, notice, warning, error, critical, got \"verbose\"", { $0.log.level = "verbose" }),
            ("log.format: must be json or text, got \"xml\"", { $0.log.format = "xml" }),
            ("upstream.timeout_ms: must be between 1 and 120000, got 0", { $0.upstream.timeoutMS = 0 }),
            ("upstream.timeout_ms: must be between 1 and 120000, got 120001", { $0.upstream.timeoutMS = 120_001 }),
            ("upstream.max_in_flight: must be at least 1, got 0", { $0.upstream.maxInFlight = 0 }),
            ("kakao.cache_seconds: must be between 0 and 300 (0 turns the cache off; a token Kakao revoked must not keep working for longer), got -1", { $0.kakao.cacheSeconds = -1 }),
            ("kakao.cache_seconds: must be between 0 and 300 (0 turns the cache off; a token Kakao revoked must not keep working for longer), got 301", { $0.kakao.cacheSeconds = 301 }),
            ("rate_limit.per_client_per_minute: must be at least 0 (0 turns rate limiting off), got -1",
             { $0.rateLimit.perClientPerMinute = -1 }),
            ("server.shutdown_grace_seconds: must be between 0 and 600, got 601", { $0.server.shutdownGraceSeconds = 601 }),
        ]
        for (expected, mutate) in cases {
            #expect(Self.problems(mutate) == [expected])
        }

        // The edges that are allowed.
        #expect(Self.problems {
            $0.server.port = 0
            $0.firebase.customTokenTTLSeconds = 1
            $0.firebase.clockSkewSeconds = 60
            $0.hook.secret = String(repeating: "s", count: 32)
            $0.kakao.uidPrefix = String(repeating: "p", count: 108)
            $0.kakao.apiBaseURL = "HTTP://user:pw@[::1]:8080/base"
            $0.firebase.identityToolkitURL = "http://127.0.0.1:9"
            $0.backend.loginCompleteURL = "https://b.example/x?y=1"
            $0.firebase.webAPIKey = "k"
            $0.upstream.timeoutMS = 120_000
            $0.server.shutdownGraceSeconds = 0
            $0.log.level = "critical"
        } == [])
    }

    @Test func lifecycleKeysAreValidatedTogether() {
        // An enum in `BridgeConfig`: a word outside the set is refused where the text is read, with the others.
        let problems = Self.problems(yaml: Self.minimal.replacingOccurrences(of: "app_id: 42", with: "app_id: 42\n  unlink_action: erase")) + Self.problems { config in
            config.kakao.unlinkDeadlineMS = 5000
            config.backend.unlinkURL = "http://backend.example.com/unlinked"
            config.linking.byVerifiedEmail = true
            config.firebase.userSync = .off
        }
        for expected in [
            "kakao.unlink_action: must be one of revoke, disable, delete, none", "kakao.unlink_deadline_ms: must be between 100 and 2900",
            "backend.unlink_url: must be https://", "backend.unlink_url: needs kakao.admin_key", "backend.unlink_url: needs hook.secret",
            "linking.by_verified_email: needs firebase.user_sync",
        ] {
            #expect(problems.contains { $0.hasPrefix(expected) }, "\(expected) not in \(problems)")
        }
        let environment = try? ConfigLoader.parse(yaml: Self.minimal, environment: [
            // Kakao's admin keys are 32 hexadecimal characters (docs/configuration.md#keys).
            "BRIDGE_KAKAO_ADMIN_KEY": "0123456789abcdef0123456789abcdef", "BRIDGE_KAKAO_UNLINK_ACTION": "delete",
            "BRIDGE_LINKING_BY_VERIFIED_EMAIL": "true",
        ])
        #expect(environment?.kakao.adminKey == "0123456789abcdef0123456789abcdef")
        #expect(environment?.kakao.unlinkAction == .delete)
        #expect(environment?.linking.byVerifiedEmail == true)
        let defaults = BridgeConfig()
        #expect(defaults.kakao.unlinkAction == .revoke && defaults.kakao.unlinkDeadlineMS == 2500)
        #expect(defaults.kakao.adminKey.isEmpty && defaults.backend.unlinkURL.isEmpty && !defaults.linking.byVerifiedEmail)
    }

    @Test func invalidTrustedProxiesAreReportedEach() {
        let problems = Self.problems(yaml: Self.minimal + """

            server:
              trusted_proxies: [10.0.0.0/8, 10.0.0.300/8, "::1/129", 01.2.3.4]
            """)
        #expect(problems == [
            "server.trusted_proxies: \"10.0.0.300/8\" is not a CIDR (expected e.g. 10.0.0.0/8, fd00::/8 or a bare address)",
            "server.trusted_proxies: \"::1/129\" is not a CIDR (expected e.g. 10.0.0.0/8, fd00::/8 or a bare address)",
            "server.trusted_proxies: \"01.2.3.4\" is not a CIDR (expected e.g. 10.0.0.0/8, fd00::/8 or a bare address)",
        ])
    }

    @Test func everyProblemIsReportedAtOnce() {
        let yaml = """
            server:
              port: 70000
              trusted_proxies: [nonsense]
            kakao:
              uid_prefix: ""
            firebase:
              custom_token_ttl_seconds: 7200
              clock_skew_seconds: 120
            backend:
              login_complete_url: https://backend.example.com/done
            hook:
              secret: too-short-secret
            upstream:
              timeout_ms: 0
              max_in_flight: 0
            log:
              level: loud
              format: xml
              colour: true
            """
        do {
            _ = try ConfigLoader.parse(yaml: yaml, environment: ["BRIDGE_KAKAO_CACHE_SECONDS": "-5"])
            Issue.record("an invalid configuration was accepted")
        } catch {
            let keys = error.problems.map { String($0.prefix { $0 != ":" && $0 != " " }) }
            #expect(Set(keys) == [
                "server.port", "server.trusted_proxies", "kakao.app_id", "kakao.uid_prefix", "kakao.cache_seconds",
                "firebase.service_account_file", "firebase.custom_token_ttl_seconds", "firebase.clock_skew_seconds",
                "backend.login_complete_url", "hook.secret", "upstream.timeout_ms", "upstream.max_in_flight",
                "log.level", "log.format", "unknown",
            ])
            #expect(error.problems.count == 15)
            #expect(error.description == error.problems.joined(separator: "\n"))
            #expect(error.problems.contains("kakao.cache_seconds (from BRIDGE_KAKAO_CACHE_SECONDS): must be between 0 and 300 (0 turns the cache off; a token Kakao revoked must not keep working for longer), got -5"))
            #expect(error.problems.contains("unknown key log.colour"))
        }
    }

    @Test func secretsAreNeverEchoed() {
        let secret = "hunter2-but-longer"
        let key = "AIzaSyNotARealKeyButSecretAnyway"
        var problems = Self.problems(yaml: Self.minimal + """

            hook:
              secret: \(secret)
            backend:
              login_complete_url: "https://u:\(secret)@backend.example.com/x y"
            """)
        problems += Self.problems(environment: ["BRIDGE_HOOK_SECRET": secret, "BRIDGE_FIREBASE_WEB_API_KEY": key])
        problems += Self.problems(yaml: "hook:\n  secret: [\(secret)]\nfirebase:\n  web_api_key: {k: \(key)}\n")
        problems += Self.problems(yaml: "hook:\n  secret: \(secret)\n  secret: \(secret)\n")
        #expect(problems.count >= 5)
        for problem in problems {
            #expect(!problem.contains(secret), "\(problem)")
            #expect(!problem.contains(key), "\(problem)")
        }
    }

    @Test func exampleFileParsesAndDocumentsEveryKey() throws {
        let example = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("config/bridge.example.yaml")
        let text = try String(contentsOf: example, encoding: .utf8)
        let config = try ConfigLoader.parse(yaml: text, environment: [:])
        #expect(config.kakao.appID == 123_456)
        #expect(config.firebase.serviceAccountFile == "/etc/kakao-bridge/service-account.json")

        // Apart from the two required placeholders and the loopback reverse proxy, the sample shows the defaults.
        var expected = BridgeConfig()
        expected.kakao.appID = 123_456
        expected.firebase.serviceAccountFile = "/etc/kakao-bridge/service-account.json"
        expected.server.trustedProxies = [CIDR("127.0.0.1/32")!, CIDR("::1/128")!]
        #expect(config == expected)

        // load(path:) reads the same file.
        #expect(try ConfigLoader.load(path: example.path, environment: [:]) == expected)

        for key in ["trusted_proxies", "shutdown_grace_seconds", "api_base_url", "uid_prefix", "cache_seconds",
                    "project_id", "web_api_key", "identity_toolkit_url", "securetoken_certs_url",
                    "custom_token_ttl_seconds", "clock_skew_seconds", "tenant_id", "login_complete_url", "secret",
                    "enabled", "timeout_ms", "max_in_flight", "per_client_per_minute", "level", "format", "admin_key",
                    "unlink_action", "unlink_deadline_ms", "unlink_url", "by_verified_email", "admin_key_file",
                    "web_api_key_file", "secret_file"] {
            #expect(text.contains("\n  \(key):"), "\(key) missing from the example")
        }
    }

    @Test func loadHandlesMissingFiles() throws {
        let missing = "/nonexistent/kakao-bridge/bridge.yaml"
        #expect(throws: ConfigError.self) { try ConfigLoader.load(path: missing, environment: [:]) }
        do {
            _ = try ConfigLoader.load(path: missing, environment: [:])
        } catch {
            #expect(error.problems == ["configuration file \(missing): not found"])
        }
        do {
            _ = try ConfigLoader.load(path: nil, environment: [:])
        } catch {
            #expect(error.problems == ["no configuration file given (use --config PATH)"])
        }
        let environment = ["BRIDGE_KAKAO_APP_ID": "5", "BRIDGE_FIREBASE_SERVICE_ACCOUNT_FILE": "/sa.json"]
        let fromEnvironment = try ConfigLoader.load(path: missing, environment: environment, requireFile: false)
        #expect(fromEnvironment.kakao.appID == 5)
        #expect(try ConfigLoader.load(path: nil, environment: environment, requireFile: false) == fromEnvironment)
    }

    @Test func cidrParsing() {
        for valid in ["10.0.0.0/8", "0.0.0.0/0", "192.168.1.7", "::1/128", "::/0", "fd00::/8", "2001:db8::1",
                      "::ffff:10.0.0.1/128", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", " 10.1.0.0/16 "] {
            #expect(CIDR(valid) != nil, "\(valid)")
        }
        for invalid in ["", "10.0.0/8", "10.0.0.256", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/-1", "010.0.0.1", "::1/129",
                        "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "fe80::g", "1:2:3:4:5:6:7::8:9", "example.com",
                        "10.0.0.0/8/8", ":1::"] {
            #expect(CIDR(invalid) == nil, "\(invalid)")
        }
        #expect(CIDR("10.0.0.0/8")?.description == "10.0.0.0/8")
        #expect(CIDR("10.1.2.3/8") == CIDR("10.0.0.0/8"))
    }

    @Test func cidrContainsIPv4() throws {
        let net = try #require(CIDR("10.0.0.0/8"))
        #expect(net.contains("10.0.0.1"))
        #expect(net.contains("10.255.255.255"))
        #expect(!net.contains("11.0.0.0"))
        #expect(!net.contains("9.255.255.255"))
        #expect(!net.contains("not an address"))
        #expect(!net.contains("::1"))
        #expect(net.contains("::ffff:10.2.3.4"))  // how a dual-stack socket reports an IPv4 peer

        let odd = try #require(CIDR("192.168.1.128/25"))
        #expect(odd.contains("192.168.1.200"))
        #expect(!odd.contains("192.168.1.127"))

        let host = try #require(CIDR("127.0.0.1"))
        #expect(host.contains("127.0.0.1"))
        #expect(!host.contains("127.0.0.2"))
        #expect(try #require(CIDR("0.0.0.0/0")).contains("203.0.113.9"))
    }

    @Test func cidrContainsIPv6() throws {
        let loopback = try #require(CIDR("::1/128"))
        #expect(loopback.contains("::1"))
        #expect(loopback.contains("0:0:0:0:0:0:0:1"))
        #expect(!loopback.contains("::2"))
        #expect(!loopback.contains("127.0.0.1"))

        let ula = try #require(CIDR("fd00::/8"))
        #expect(ula.contains("fd12:3456:789a::1"))
        #expect(ula.contains("FD00::"))
        #expect(!ula.contains("fe80::1"))

        let doc = try #require(CIDR("2001:db8::/33"))
        #expect(doc.contains("2001:db8:7fff::1"))
        #expect(!doc.contains("2001:db8:8000::1"))
        #expect(try #require(CIDR("fe80::/10")).contains("fe80::1%eth0"))
        #expect(try #require(CIDR("::/0")).contains("2001:db8::1"))
    }
}
