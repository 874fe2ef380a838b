import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import StandIns
import Testing
import EndToEndSupport

/// docs/operations.md#shared-state: a store that cannot be reached is loud. The service starts, `/readyz` is 503 naming
/// the store until it has answered once, a request that needs it is 503 `state_unavailable`, and nothing falls back to
/// memory.
@Suite("An unreachable state store", .serialized)
struct UnreachableStoreTests {
    @Test func theServiceStartsNotReadyAndTheWebhookIs503StateUnavailable() async throws {
        try await TestWorld.with { world in
            // The admin key turns the unlink webhook on.
            let (bridge, base) = try await Self.start(world, kakao: "  admin_key: 0123456789abcdef0123456789abcdef\n")
            defer { bridge.stop() }

            // Until the store has failed once (before that it is only "not answered yet"): then it is known unreachable.
            var ready = Reply(try await world.http.execute(HTTPRequest(method: .get, url: base + "/readyz")))
            let start = ContinuousClock.now
            while ready.json?["detail"]?.stringValue?.contains("cannot be reached") != true, ContinuousClock.now - start < .seconds(15) {
                try await Task.sleep(for: .milliseconds(200))
                ready = Reply(try await world.http.execute(HTTPRequest(method: .get, url: base + "/readyz")))
            }
            #expect(ready.status == 503)
            #expect(ready.json?["detail"]?.stringValue?.contains("state store") == true, "\(ready.text)")

            let asked = ContinuousClock.now
            let webhook = Reply(try await world.http.execute(HTTPRequest(
                method: .get, url: base + "/v1/kakao/unlink?app_id=\(TestWorld.appID)&user_id=1234567890&referrer_type=UNLINK_FROM_APPS",
                headers: [("Authorization", "KakaoAK 0123456789abcdef0123456789abcdef")]
            )))
            #expect(webhook.status == 503)
            #expect(webhook.code == "state_unavailable", "\(webhook.text)")
            // At once, not after the store's own timeout: Kakao waits 3 s.
            #expect(ContinuousClock.now - asked < .seconds(2))
            #expect(bridge.lines.contains { $0.contains("the state store cannot be reached") })
        }
    }

    /// The store's health is watched whatever needs it: with Kakao ID tokens' nonces alone (no webhook) on a store that
    /// never answered, `/readyz` is 503 from the first probe on, never 200.
    @Test func withNoncesAloneTheInstanceIsNotReadyUntilTheStoreHasAnswered() async throws {
        try await TestWorld.with { world in
            let (bridge, base) = try await Self.start(world, kakao: """
                  oidc:
                    audiences: ["\(OIDC.audience)"]
                    jwks_url: "\(KakaoStandIn.jwksURL(on: world.servers.kakao))"

                """)
            defer { bridge.stop() }
            let start = ContinuousClock.now
            var statuses: Set<Int> = []
            while ContinuousClock.now - start < .seconds(7) {
                let ready = Reply(try await world.http.execute(HTTPRequest(method: .get, url: base + "/readyz")))
                statuses.insert(ready.status)
                if ready.status == 503 {
                    #expect(ready.json?["detail"]?.stringValue?.contains("state store") == true, "\(ready.text)")
                }
                try await Task.sleep(for: .milliseconds(250))
            }
            #expect(statuses == [503], "readiness answered \(statuses.sorted()) while the store never answered")
            let metrics = Reply(try await world.http.execute(HTTPRequest(method: .get, url: base + "/metrics"))).text
            #expect(metrics.contains("kakao_bridge_state_store_up 0"), "\(metrics.prefix(400))")
        }
    }

    /// A `kakao-bridge serve` whose store nobody answers (port 9, discard), with `kakao` added to its `kakao:` section.
    static func start(_ world: TestWorld, kakao: String) async throws -> (BridgeProcess, String) {
        let directory = try OpsFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("bridge.yaml").path
        var file = OpsConfigFile(kakaoURL: world.servers.kakao.baseURL, serviceAccountFile: world.config.firebase.serviceAccountFile)
        file.extra = """
            state:
              url: "postgres://kb@127.0.0.1:9/kb?sslmode=disable"
            """
        try OpsFiles.writePrivate(file.yaml().replacingOccurrences(of: "  cache_seconds: 0\n", with: "  cache_seconds: 0\n" + kakao), to: configPath)
        let bridge = try BridgeProcess(configPath: configPath)
        do {
            return (bridge, "http://127.0.0.1:\(try await bridge.waitForPort())")
        } catch {
            bridge.stop()
            throw error
        }
    }
}
