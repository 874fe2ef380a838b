@testable import KakaoBridge
import BridgeSupport
import Hummingbird
import Testing
import Upstreams
import EndToEndSupport

/// A crowd connecting at once must find room in the listen queue: with Hummingbird's 256, the handshakes past it are
/// dropped and wait a second or more for the client's retransmission (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
@Suite struct ListenBacklogTests {
    @Test(arguments: [4096, 300])
    func theListenQueueIsAsLongAsTheConnectionsAccepted(_ maxConnections: Int) async throws {
        try await TestWorld.with { world in
            var config = world.config
            config.server.port = 0
            config.server.maxConnections = maxConnections
            let app = try buildApplication(
                config: config, upstreams: .live(config, http: world.http),
                environment: BridgeEnvironment(logger: .bridge(level: "error", format: "json", sink: .memory()))
            )
            #expect(app.configuration.backlog == maxConnections)
        }
    }
}
