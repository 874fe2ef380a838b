import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import HTTPTypes
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes
#if canImport(Glibc)
import Glibc
#endif

/// `server.admin_port` (docs/operations.md#the-admin-port): the probes and `/metrics` on a listener of their own, the
/// public port answering them 404, both listeners in one service group and drained in order.
@Suite(.serialized) struct OpsAdminPortTests {
    static let adminRoutes = ["/healthz", "/readyz", "/metrics"]

    /// The value of an unlabelled metric in an exposition.
    static func value(of name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    @Test func theProbesAndTheScrapeMoveToTheAdminPortAndThePublicPortAnswersThem404() async throws {
        try await TestWorld.with(TestWorld.Options(configure: { $0.server.adminPort = 0 })) { world in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            for path in Self.adminRoutes {
                let hidden = try await world.get(path)
                #expect(hidden.status == 404 && hidden.code == "not_found" && hidden.isProblem, "\(path): \(hidden.text)")
                #expect(try await world.adminGet(path).status == 200, "\(path) on the admin port")
            }
            // The admin port serves nothing else.
            let exchange = try await world.adminGet("/v1/token-exchange")
            #expect(exchange.status == 404 && exchange.code == "not_found")
            // As the route table says: a method a route does not take is 405 on its listener, 404 on the other.
            let admin = try #require(world.bridge.adminURL)
            for route in Route.allCases {
                guard let method = [CurlHTTP.HTTPRequest.Method.get, .post].first(where: { !route.methods.map(\.rawValue).contains($0.rawValue) })
                else { continue }
                let path = RouteTableTests.samplePath(route)
                for (base, listener) in [(world.bridge.baseURL, Route.Listener.public), (admin, .admin)] {
                    let reply = Reply(try await world.http.execute(HTTPRequest(method: method, url: base + path, body: method == .post ? [] : nil)))
                    #expect(reply.status == (route.listener == listener ? 405 : 404), "\(route) on the \(listener) port: \(reply.status)")
                }
            }
            // Its metrics are the process's: the public exchange and the 404s the public port answered.
            let metrics = try await world.adminGet("/metrics")
            #expect(metrics.text.contains(#"kakao_bridge_requests_total{route="/v1/token-exchange",method="GET",status="200"}"#))
            #expect(metrics.text.contains(#"kakao_bridge_requests_total{route="unmatched",method="GET",status="404"}"#))
            #expect(!metrics.text.contains(token))
        }
    }

    @Test func withoutAnAdminPortThePublicPortServesEverything() async throws {
        try await RouterWorld.with { world async throws in
            for path in Self.adminRoutes { #expect(try await world.get(path).status == 200, "\(path)") }
        }
        try await RouterWorld.with(RouterWorld.Options(configure: { $0.server.adminPort = 0 })) { world async throws in
            for path in Self.adminRoutes { #expect(try await world.get(path).status == 404, "\(path)") }
            #expect(try await world.request(.put, "/metrics").status == 404, "no 405 either: the path is not served here")
        }
    }

    /// The real executable: its admin listener runs in the same service group. On SIGTERM the public port drains its
    /// in-flight login while the admin port, still up, says `/readyz` 503; then both stop and the process exits 0.
    @Test func sigtermDrainsThePublicPortWhileTheAdminPortSaysNotReady() async throws {
        try await TestWorld.with { world in
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let configPath = directory.appendingPathComponent("bridge.yaml").path
            try OpsConfigFile(kakaoURL: world.servers.kakao.baseURL, serviceAccountFile: world.config.firebase.serviceAccountFile, adminPort: 0)
                .write(to: configPath)
            let bridge = try BridgeProcess(configPath: configPath)
            defer { bridge.stop() }
            let ports = try await bridge.waitForPorts()
            let (base, admin) = ("http://127.0.0.1:\(ports.public)", "http://127.0.0.1:\(ports.admin)")
            #expect(try await world.http.execute(HTTPRequest(method: .get, url: admin + "/readyz")).status == 200)
            #expect(try await world.http.execute(HTTPRequest(method: .get, url: base + "/readyz")).status == 404)
            // The binary makes itself non-dumpable (its /proc files then belong to root): it still reads its own.
            let scrape = Reply(try await world.http.execute(HTTPRequest(method: .get, url: admin + "/metrics"))).text
            for name in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                         "process_open_fds", "process_max_fds", "process_start_time_seconds"] {
                let value = Self.value(of: name, in: scrape)
                #expect((value ?? 0) > 0, "\(name): \(value.map { "\($0)" } ?? "missing")")
            }

            world.kakao.setFault(.delay(.milliseconds(2000)))
            let token = world.validToken()
            let slow = Task {
                Reply(try await world.http.execute(HTTPRequest(
                    method: .get, url: base + "/v1/token-exchange", headers: [("Authorization", "Bearer " + token)]
                )))
            }
            try await Task.sleep(for: .milliseconds(400))
            bridge.signal(SIGTERM)
            _ = try await bridge.waitForLine { $0.contains("shutting down") }
            let probe = CurlHTTPClient()
            defer { probe.shutdown() }
            let draining = Reply(try await probe.execute(HTTPRequest(
                method: .get, url: admin + "/readyz", headers: [("Connection", "close")], timeout: .seconds(1)
            )))
            #expect(draining.status == 503 && draining.code == "not_ready", "\(draining.text)")
            let reply = try await slow.value
            #expect(reply.status == 200, "the in-flight request failed: \(reply.text)")
            #expect(try await bridge.waitForExit() == 0)
        }
    }
}
