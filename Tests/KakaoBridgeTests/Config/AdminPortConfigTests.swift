import BridgeSupport
import Foundation
@testable import KakaoBridge
import Testing
import BridgeTestSupport

/// `server.admin_port` and `server.admin_host` (docs/configuration.md#keys): read from YAML and the environment, every
/// problem listed at once.
@Suite struct AdminPortConfigTests {
    static func problems(server: String, environment: [String: String] = [:]) -> [String] {
        ConfigFixture.problems(yaml: ConfigFixture.minimal + "\nserver:\n" + server, environment: environment)
    }

    @Test func theAdminPortIsOffUntilSetAndTakesAPortOtherThanThePublicOne() throws {
        #expect(BridgeConfig().server.adminPort == nil)
        #expect(BridgeConfig().server.adminHost == "127.0.0.1")
        let set = try ConfigLoader.parse(yaml: ConfigFixture.minimal + "\nserver:\n  admin_port: 9090\n  admin_host: 0.0.0.0\n", environment: [:])
        #expect(set.server.adminPort == 9090)
        #expect(set.server.adminHost == "0.0.0.0")
        let fromEnvironment = try ConfigLoader.parse(yaml: ConfigFixture.minimal, environment: ["BRIDGE_SERVER_ADMIN_PORT": " 9091 "])
        #expect(fromEnvironment.server.adminPort == 9091)
        // Empty, `~` and an empty variable: not set (the variable turns a file's value off).
        for yaml in ["  admin_port:\n", "  admin_port: ~\n"] {
            #expect(try ConfigLoader.parse(yaml: ConfigFixture.minimal + "\nserver:\n" + yaml, environment: [:]).server.adminPort == nil)
        }
        let cleared = try ConfigLoader.parse(
            yaml: ConfigFixture.minimal + "\nserver:\n  admin_port: 9090\n", environment: ["BRIDGE_SERVER_ADMIN_PORT": ""]
        )
        #expect(cleared.server.adminPort == nil)
        // Both 0: two free ports (the tests).
        #expect(Self.problems(server: "  port: 0\n  admin_port: 0\n") == [])
    }

    @Test func everyProblemOfTheAdminPortIsListedAtOnce() {
        #expect(Self.problems(server: "  port: 8080\n  admin_port: 8080\n  admin_host: \" \"\n") == [
            "server.admin_port: must differ from server.port (8080): the probes and /metrics get a listener of their own",
            "server.admin_host: must not be empty (the address the admin port listens on, e.g. 127.0.0.1, or 0.0.0.0 in a pod)",
        ])
        #expect(Self.problems(server: "  admin_port: 70000\n") == ["server.admin_port: must be between 0 and 65535 (0 picks a free port), got 70000"])
        #expect(Self.problems(server: "  admin_port: nine\n") == ["server.admin_port: expected an integer, got \"nine\""])
        #expect(Self.problems(server: "", environment: ["BRIDGE_SERVER_ADMIN_PORT": "-1"])
            == ["server.admin_port (from BRIDGE_SERVER_ADMIN_PORT): must be between 0 and 65535 (0 picks a free port), got -1"])
    }

    @Test func theAdminKeysNeedARestart() {
        var changed = BridgeConfig()
        changed.server.adminPort = 9090
        changed.server.adminHost = "0.0.0.0"
        #expect(ReloadService.restartOnlyChanges(from: BridgeConfig(), to: changed) == ["server.admin_port", "server.admin_host"])
    }
}
