@testable import BridgeFeatures
@testable import KakaoBridge
import BridgeSupport
import Testing
import BridgeTestSupport

/// Security issue 27, the two connection keys (docs/configuration.md#keys): read from YAML and BRIDGE_*, bounded, and
/// the per-client cap's default derived from `server.max_connections`.
@Suite struct HardeningConnectionKeysTests {
    @Test func theConnectionKeysAreReadBoundedAndDefaultToAQuarter() throws {
        let yaml = ConfigFixture.minimal + "\nserver:\n  max_connections_per_client: 3\n  first_request_timeout_seconds: 2\n"
        let config = try ConfigLoader.parse(yaml: yaml, environment: ["BRIDGE_SERVER_FIRST_REQUEST_TIMEOUT_SECONDS": "7"])
        #expect(config.server.maxConnectionsPerClient == 3)
        #expect(config.server.firstRequestTimeoutSeconds == 7)
        let defaults = BridgeConfig().server
        #expect(defaults.maxConnectionsPerClient == 0 && defaults.firstRequestTimeoutSeconds == 5)

        let problems = ConfigFixture.problems {
            $0.server.maxConnectionsPerClient = -1
            $0.server.firstRequestTimeoutSeconds = 0
        }
        #expect(problems.contains { $0.hasPrefix("server.max_connections_per_client") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("server.first_request_timeout_seconds") }, "\(problems)")
        #expect(ConfigFixture.problems { $0.server.firstRequestTimeoutSeconds = 601 }.count == 1)

        #expect(ConnectionCount(limit: 4096).perClientLimit == 1024)
        #expect(ConnectionCount(limit: 20).perClientLimit == 5)
        #expect(ConnectionCount(limit: 2).perClientLimit == 1)
        #expect(ConnectionCount(limit: 20, perClientLimit: 64).perClientLimit == 64)
        // Counted as the rate limit counts: an IPv6 client by its /64, an IPv4-mapped one as IPv4; proxies not at all.
        let count = ConnectionCount(limit: 20, perClientLimit: 2) { $0 == "10.0.0.1" }
        let first = count.enter(client: "2001:db8:1:2::1"), second = count.enter(client: "2001:db8:1:2:ffff::9")
        #expect(first == second && count.isOverLimit(client: first!) == false)
        _ = count.enter(client: "2001:db8:1:2::3")
        #expect(count.isOverLimit(client: first!))
        #expect(count.enter(client: "::ffff:192.0.2.7") == "192.0.2.7")
        #expect(count.enter(client: "10.0.0.1") == nil && count.enter(client: nil) == nil)
        count.leave(client: first!)
        #expect(count.current(client: first!) == 2)
        #expect(ClientRateLimit.clientKey("::ffff:192.0.2.7") != ClientRateLimit.clientKey("::ffff:192.0.2.8"))
        // Restart keys: a reload that changes them says so.
        var changed = BridgeConfig()
        changed.server.maxConnectionsPerClient = 9
        changed.server.firstRequestTimeoutSeconds = 9
        #expect(ReloadService.restartOnlyChanges(from: BridgeConfig(), to: changed)
            == ["server.max_connections_per_client", "server.first_request_timeout_seconds"])
    }
}
