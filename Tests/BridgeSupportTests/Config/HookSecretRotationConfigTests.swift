import BridgeSupport
import Foundation
import Testing
import BridgeTestSupport

/// `hook.secret` as one secret or, during a rotation, a list of them (docs/configuration.md#rotating-the-hook-secret):
/// in YAML, in `BRIDGE_HOOK_SECRET` (comma-separated) and in `hook.secret_file` (one per line), each at least 32 bytes,
/// never echoed.
@Suite struct HookSecretRotationConfigTests {
    static let new = "new-hook-secret-0123456789abcdef0123"
    static let old = "old-hook-secret-0123456789abcdef0123"

    static func config(yaml: String = ConfigTests.minimal, environment: [String: String] = [:]) throws -> BridgeConfig {
        try ConfigLoader.parse(yaml: yaml, environment: environment)
    }

    @Test func oneSecretStaysOneSecretAndTheFirstOfAListIsTheOneSent() throws {
        let single = try Self.config(yaml: ConfigTests.minimal + "\nhook:\n  secret: \(Self.new)\n")
        #expect(single.hook.secrets == [Self.new])
        #expect(single.hook.secret == Self.new)
        for yaml in ["  secret: [\(Self.new), \(Self.old)]\n", "  secret:\n    - \(Self.new)\n    - \(Self.old)\n"] {
            let list = try Self.config(yaml: ConfigTests.minimal + "\nhook:\n" + yaml)
            #expect(list.hook.secrets == [Self.new, Self.old], "\(yaml)")
            #expect(list.hook.secret == Self.new)
        }
        let environment = try Self.config(environment: ["BRIDGE_HOOK_SECRET": "\(Self.new), \(Self.old)"])
        #expect(environment.hook.secrets == [Self.new, Self.old])
        #expect(try Self.config(environment: ["BRIDGE_HOOK_SECRET": ""]).hook.secrets.isEmpty)
        // Setting the one secret replaces the list (what the tests and the sandbox do).
        var config = environment
        config.hook.secret = Self.old
        #expect(config.hook.secrets == [Self.old])
        config.hook.secret = ""
        #expect(config.hook.secrets.isEmpty)
    }

    @Test func aSecretFileHoldsOneSecretPerLine() throws {
        let files = try HardeningSecretConfigTests.Files()
        let path = try files.write("hook-secrets", "\(Self.new)\r\n\n\(Self.old)\n")
        let config = try Self.config(environment: ["BRIDGE_HOOK_SECRET_FILE": path])
        #expect(config.hook.secrets == [Self.new, Self.old])
        let one = try files.write("hook-secret", Self.new + "\n")
        #expect(try Self.config(yaml: ConfigTests.minimal + "\nhook:\n  secret_file: \(one)\n").hook.secrets == [Self.new])
    }

    @Test func everySecretOfTheListIsAtLeast32BytesAndNoneIsEchoed() {
        let short = "short-secret"
        let problems = ConfigTests.problems(yaml: ConfigTests.minimal + "\nhook:\n  secret: [\(Self.new), \(short), \(Self.new)]\n")
        #expect(problems == [
            "hook.secret: entry 2 of 3 must be at least 32 bytes, as every secret of the list (generate one with `openssl rand -hex 32`)",
            "hook.secret: lists the same secret more than once",
        ])
        let fromEnvironment = ConfigTests.problems(environment: ["BRIDGE_HOOK_SECRET": "\(short),\(Self.old)"])
        #expect(fromEnvironment == [
            "hook.secret (from BRIDGE_HOOK_SECRET): entry 1 of 2 must be at least 32 bytes, as every secret of the list (generate one with `openssl rand -hex 32`)",
        ])
        // A list of one is one secret, with the message it always had.
        #expect(ConfigTests.problems(environment: ["BRIDGE_HOOK_SECRET": short]) == [
            "hook.secret (from BRIDGE_HOOK_SECRET): must be at least 32 bytes, or empty to turn the hook off (generate one with `openssl rand -hex 32`)",
        ])
        for problem in problems + fromEnvironment {
            #expect(!problem.contains(short) && !problem.contains(Self.new) && !problem.contains(Self.old))
        }
    }

    /// A list written in a configuration file that others can read is refused like one secret (docs/configuration.md#secrets-in-files).
    @Test func aListOfSecretsInAReadableConfigurationFileIsRefused() throws {
        let files = try HardeningSecretConfigTests.Files()
        let path = try files.write("bridge.yaml", ConfigTests.minimal + "\nhook:\n  secret: [\(Self.new), \(Self.old)]\n", mode: 0o644)
        let problems = HardeningSecretConfigTests.loadProblems(path)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("configuration file: holds secrets (hook.secret)") == true, "\(problems)")
        #expect(problems.allSatisfy { !$0.contains(Self.new) && !$0.contains(Self.old) })
    }
}
