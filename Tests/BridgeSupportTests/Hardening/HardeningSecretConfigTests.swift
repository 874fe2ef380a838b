import BridgeSupport
import Foundation
import Testing
import BridgeTestSupport

/// Issue 27's configuration items (docs/configuration.md#secrets-in-files): the admin key's format, secrets
/// given as files under the key file's mode rule, and a configuration file that others can read holding a secret.
@Suite struct HardeningSecretConfigTests {
    static let adminKey = "0123456789abcdef0123456789ABCDEF"
    static let hookSecret = "hook-secret-from-a-file-0123456789abcdef"
    static let nonceSecret = "nonce-secret-from-a-file-0123456789abcdef"
    static let webAPIKey = "AIzaSecretWebAPIKeyFromAFile"

    /// A scratch directory for one test, removed at its end (BridgeTestSupport; ExecutableTests uses it too).
    typealias Files = SecretFiles

    /// `ConfigTests.minimal` with more keys in its `kakao:` section.
    static func yaml(kakao extra: String) -> String {
        "kakao:\n  app_id: 42\n\(extra)firebase:\n  service_account_file: /tmp/sa.json\n"
    }

    static func problems(yaml: String = ConfigTests.minimal, environment: [String: String] = [:]) -> [String] {
        ConfigTests.problems(yaml: yaml, environment: environment)
    }

    static func loadProblems(_ path: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try ConfigLoader.load(path: path, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    // MARK: kakao.admin_key's format

    @Test func anAdminKeyThatIsNotThirtyTwoHexadecimalCharactersIsRefusedWithoutEchoingIt() throws {
        let notKeys = ["x", String(repeating: "g", count: 32), String(Self.adminKey.dropLast()), Self.adminKey + "0",
                       " " + Self.adminKey.dropFirst(), "KakaoAK " + Self.adminKey]
        for value in notKeys {
            let fromFile = Self.problems(yaml: Self.yaml(kakao: "  admin_key: \"\(value)\"\n"))
            let fromEnvironment = Self.problems(environment: ["BRIDGE_KAKAO_ADMIN_KEY": value])
            #expect(fromEnvironment.count == 1, "\(value): \(fromEnvironment)")
            #expect(fromEnvironment.first?.hasPrefix("kakao.admin_key (from BRIDGE_KAKAO_ADMIN_KEY): must be Kakao's admin key") == true)
            #expect(fromFile.count == 1, "\(value): \(fromFile)")
            for problem in fromFile + fromEnvironment {
                #expect(problem.contains("32 hexadecimal characters"))
                // "x" is in "hexadecimal": only a value that cannot be a word of the message is looked for.
                if value.count > 8 { #expect(!problem.contains(value), "the key's value was echoed: \(problem)") }
            }
        }
        // Either case, and empty (the webhook off), are accepted.
        for value in [Self.adminKey, Self.adminKey.lowercased(), Self.adminKey.uppercased(), ""] {
            #expect(Self.problems(environment: ["BRIDGE_KAKAO_ADMIN_KEY": value]) == [], "\(value)")
        }
    }

    // MARK: Secrets as files

    @Test func eachSecretCanBeGivenAsAFileWithOneTrailingNewlineStripped() throws {
        let files = try Files()
        let admin = try files.write("admin-key", Self.adminKey + "\n")
        let hook = try files.write("hook-secret", Self.hookSecret + "\r\n", mode: 0o640)
        let nonce = try files.write("nonce-secret", Self.nonceSecret)
        // Group read is allowed: a Kubernetes secret mounted with `fsGroup` is 0440.
        let web = try files.write("web-api-key", Self.webAPIKey + "\n", mode: 0o440)
        let yaml = ConfigTests.minimal + """

            hook:
              secret_file: \(hook)
            """
        let config = try ConfigLoader.parse(yaml: yaml, environment: [
            "BRIDGE_KAKAO_ADMIN_KEY_FILE": admin,
            "BRIDGE_KAKAO_OIDC_NONCE_SECRET_FILE": nonce,
            "BRIDGE_FIREBASE_WEB_API_KEY_FILE": web,
        ])
        #expect(config.kakao.adminKey == Self.adminKey)
        #expect(config.hook.secret == Self.hookSecret)
        #expect(config.kakao.oidc.nonceSecret == Self.nonceSecret)
        #expect(config.firebase.webAPIKey == Self.webAPIKey)

        // One newline only: a second one belongs to the secret, which is then judged by its own rule.
        let twice = try files.write("admin-key-2", Self.adminKey + "\n\n")
        let problems = Self.problems(environment: ["BRIDGE_KAKAO_ADMIN_KEY_FILE": twice])
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("kakao.admin_key (from BRIDGE_KAKAO_ADMIN_KEY_FILE): must be Kakao's admin key") == true)
    }

    @Test func secretFilesOthersCanReadMissingFilesAndSecretsGivenBothWaysAreEveryOneRefused() throws {
        let files = try Files()
        let readable = try files.write("hook-secret", Self.hookSecret + "\n", mode: 0o644)
        let writable = try files.write("web-api-key", Self.webAPIKey, mode: 0o602)
        let missing = files.directory.appendingPathComponent("missing").path
        let admin = try files.write("admin-key", Self.adminKey)
        let empty = try files.write("empty", "\n")
        let yaml = ConfigTests.minimal + """

            hook:
              secret_file: \(readable)
            """
        let problems = Self.problems(yaml: yaml, environment: [
            "BRIDGE_FIREBASE_WEB_API_KEY_FILE": writable,
            "BRIDGE_KAKAO_OIDC_NONCE_SECRET_FILE": missing,
            "BRIDGE_KAKAO_ADMIN_KEY": Self.adminKey,
            "BRIDGE_KAKAO_ADMIN_KEY_FILE": admin,
            "BRIDGE_UPSTREAM_TIMEOUT_MS": "0",
        ])
        #expect(problems.contains("hook.secret_file: \(readable) is readable or writable by every user of this machine (mode 644); make it private to the service: chmod 600 \(readable) (or chmod 640 with a group only the service is in)"))
        #expect(problems.contains { $0.hasPrefix("firebase.web_api_key_file (from BRIDGE_FIREBASE_WEB_API_KEY_FILE): \(writable) is readable or writable") && $0.contains("(mode 602)") })
        #expect(problems.contains("kakao.oidc.nonce_secret_file (from BRIDGE_KAKAO_OIDC_NONCE_SECRET_FILE): cannot read \(missing) (missing, or not readable by the service's user)"))
        #expect(problems.contains("kakao.admin_key: given both as a value (BRIDGE_KAKAO_ADMIN_KEY) and as a file (kakao.admin_key_file (from BRIDGE_KAKAO_ADMIN_KEY_FILE)); give it one way"))
        // The other problems are still listed with them, and nothing is reported twice.
        #expect(problems.contains("upstream.timeout_ms (from BRIDGE_UPSTREAM_TIMEOUT_MS): must be between 1 and 120000, got 0"))
        #expect(problems.count == 5, "\(problems)")
        for problem in problems {
            for secret in [Self.hookSecret, Self.webAPIKey, Self.adminKey] { #expect(!problem.contains(secret), "\(problem)") }
        }

        let emptyProblems = Self.problems(environment: ["BRIDGE_HOOK_SECRET_FILE": empty])
        #expect(emptyProblems == ["hook.secret_file (from BRIDGE_HOOK_SECRET_FILE): \(empty) is empty"])
        // Given both ways within the configuration file too.
        let both = Self.problems(yaml: ConfigTests.minimal + "\nhook:\n  secret: \(Self.hookSecret)\n  secret_file: \(admin)\n")
        #expect(both == ["hook.secret: given both as a value (the configuration file) and as a file (hook.secret_file); give it one way"])
    }

    @Test func secretFilesAreReadAgainOnEveryLoadAsAReloadDoes() throws {
        let files = try Files()
        let admin = try files.write("admin-key", Self.adminKey + "\n")
        let configPath = try files.write("bridge.yaml", ConfigTests.minimal + "\nhook:\n  secret_file: \(try files.write("hook", Self.hookSecret))\n")
        let environment = ["BRIDGE_KAKAO_ADMIN_KEY_FILE": admin]
        #expect(try ConfigLoader.load(path: configPath, environment: environment).kakao.adminKey == Self.adminKey)
        let rotated = String(Self.adminKey.reversed())
        try files.write("admin-key", rotated + "\n")
        // ReloadService builds the new state from ConfigLoader.load: the rotated key is what a SIGHUP gives.
        let reloaded = try ConfigLoader.load(path: configPath, environment: environment)
        #expect(reloaded.kakao.adminKey == rotated)
        #expect(reloaded.hook.secret == Self.hookSecret)
    }

    // MARK: A configuration file others can read

    @Test func aConfigurationFileOthersCanReadIsRefusedWhenItHoldsASecret() throws {
        let files = try Files()
        let yaml = Self.yaml(kakao: "  admin_key: \(Self.adminKey)\n") + "hook:\n  secret: \(Self.hookSecret)\n"
        let exposed = try files.write("bridge.yaml", yaml, mode: 0o644)
        let problems = Self.loadProblems(exposed)
        #expect(problems == [
            "configuration file: holds secrets (kakao.admin_key, hook.secret), but \(exposed) is readable or writable by every user of this machine (mode 644); "
                + "make it private to the service: chmod 600 \(exposed) (or chmod 640 with a group only the service is in); "
                + "or take the secrets out of it (kakao.admin_key_file, hook.secret_file, or BRIDGE_* variables)",
        ])
        #expect(problems.allSatisfy { !$0.contains(Self.adminKey) && !$0.contains(Self.hookSecret) })

        // Private to the service, or to its group: accepted.
        for mode in [0o600, 0o640, 0o440] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: exposed)
            #expect(Self.loadProblems(exposed) == [], "mode \(String(mode, radix: 8))")
        }

        // A file without a secret in it may be read by anyone (a ConfigMap is 0644), even when it names secret files or
        // leaves a secret empty; a secret from the environment is not in the file.
        let secretFile = try files.write("hook-secret", Self.hookSecret)
        let shared = try files.write("shared.yaml", ConfigTests.minimal + "\nhook:\n  secret: \"\"\n  secret_file: \(secretFile)\n", mode: 0o644)
        #expect(Self.loadProblems(shared) == [])
        let plain = try files.write("plain.yaml", ConfigTests.minimal, mode: 0o644)
        #expect(Self.loadProblems(plain, environment: ["BRIDGE_HOOK_SECRET": Self.hookSecret]) == [])
    }
}
