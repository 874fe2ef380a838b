import Upstreams
import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import ServiceLifecycle
import StandIns
import Testing
import EndToEndSupport

/// SIGTERM drains (readiness off at once, in-flight requests finish, exit 0) and SIGHUP reloads. The signal tests run
/// the real executable: only a real process shows what a signal does.
@Suite(.serialized) struct OpsLifecycleTests {
    @Test func aGracefulShutdownTurnsReadinessOffAtOnceAndLetsTheSlowCallFinish() async throws {
        try await TestWorld.with { world in
            world.kakao.setFault(.delay(.milliseconds(2500)))
            var config = world.config
            config.server.port = 0
            config.upstream.timeoutMS = 5000
            let (ports, continuation) = AsyncStream<Int>.makeStream()
            let app = try buildApplication(
                config: config, upstreams: .live(config, http: world.http),
                environment: BridgeEnvironment(logger: .bridge(level: "info", format: "json", sink: .memory())) { port in
                    continuation.yield(port)
                    continuation.finish()
                }
            )
            let group = ServiceGroup(configuration: .init(services: [app], logger: app.logger))
            let running = Task { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let base = "http://127.0.0.1:\(port)"
            #expect(try await world.http.execute(HTTPRequest(method: .get, url: base + "/readyz")).status == 200)

            let token = world.validToken()
            let slow = Task {
                try await world.http.execute(HTTPRequest(
                    method: .get, url: base + "/v1/token-exchange", headers: [("Authorization", "Bearer " + token)]
                ))
            }
            try await Task.sleep(for: .milliseconds(300))
            await group.triggerGracefulShutdown()
            try await Task.sleep(for: .milliseconds(100))
            #expect(app.holder.isDraining)
            #expect(HealthController(holder: app.holder, storeHealth: StoreHealth()).readinessProblem() != nil)
            // The listener closes: new connections are refused while the slow request is still running.
            let probe = CurlHTTPClient()
            var refused = false
            for _ in 0..<40 where !refused {
                do {
                    _ = try await probe.execute(HTTPRequest(
                        method: .get, url: base + "/healthz", headers: [("Connection", "close")], timeout: .seconds(1)
                    ))
                    try await Task.sleep(for: .milliseconds(50))
                } catch {
                    refused = true
                }
            }
            probe.shutdown()
            #expect(refused, "the listener still accepts connections while draining")
            let reply = Reply(try await slow.value)
            #expect(reply.status == 200, "the in-flight request failed: \(reply.text)")
            try await running.value
        }
    }

    @Test func sigtermLetsInFlightRequestsFinishAndExitsZero() async throws {
        try await TestWorld.with { world in
            let (directory, configPath) = try OpsFiles.configFile(for: world)
            defer { try? FileManager.default.removeItem(at: directory) }
            let bridge = try BridgeProcess(configPath: configPath)
            defer { bridge.stop() }
            let port = try await bridge.waitForPort()
            let base = "http://127.0.0.1:\(port)"

            world.kakao.setFault(.delay(.milliseconds(1500)))
            let token = world.validToken()
            let slow = Task {
                Reply(try await world.http.execute(HTTPRequest(
                    method: .get, url: base + "/v1/token-exchange", headers: [("Authorization", "Bearer " + token)]
                )))
            }
            try await Task.sleep(for: .milliseconds(400))
            let signalled = ContinuousClock.now
            bridge.signal(SIGTERM)
            _ = try await bridge.waitForLine { $0.contains("shutting down") }
            let reply = try await slow.value
            #expect(reply.status == 200, "the in-flight request failed: \(reply.text)")
            #expect(reply.json?["uid"]?.stringValue == "kakao:1234567890")
            #expect(try await bridge.waitForExit() == 0)
            #expect(ContinuousClock.now - signalled < .seconds(5))
            #expect(bridge.lines.allSatisfy { !$0.contains(token) })
        }
    }

    @Test func sigtermStopsWaitingAfterTheGracePeriod() async throws {
        try await TestWorld.with { world in
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let configPath = directory.appendingPathComponent("bridge.yaml").path
            var file = OpsConfigFile(kakaoURL: world.servers.kakao.baseURL, serviceAccountFile: world.config.firebase.serviceAccountFile)
            file.graceSeconds = 1
            try file.write(to: configPath)
            let bridge = try BridgeProcess(configPath: configPath)
            defer { bridge.stop() }
            let port = try await bridge.waitForPort()

            world.kakao.setFault(.delay(.seconds(4)))
            let token = world.validToken()
            let slow = Task {
                try? await world.http.execute(HTTPRequest(
                    method: .get, url: "http://127.0.0.1:\(port)/v1/token-exchange", headers: [("Authorization", "Bearer " + token)]
                ))
            }
            try await Task.sleep(for: .milliseconds(400))
            let signalled = ContinuousClock.now
            bridge.signal(SIGTERM)
            #expect(try await bridge.waitForExit() == 0)
            let waited = ContinuousClock.now - signalled
            #expect(waited >= .milliseconds(900) && waited < .seconds(3), "exit took \(waited)")
            _ = await slow.value
        }
    }

    @Test func sighupReloadsConfigurationAndKeyAndKeepsTheOldStateWhenTheNewOneIsBad() async throws {
        try await TestWorld.with { world in
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let configPath = directory.appendingPathComponent("bridge.yaml").path
            let keyPath = directory.appendingPathComponent("service-account.json").path
            let first = try SandboxServiceAccount.generate(projectID: "bridge-test")
            try OpsFiles.writePrivate(first.json(), to: keyPath)
            var file = OpsConfigFile(kakaoURL: world.servers.kakao.baseURL, serviceAccountFile: keyPath)
            try file.write(to: configPath)
            let bridge = try BridgeProcess(configPath: configPath)
            defer { bridge.stop() }
            let port = try await bridge.waitForPort()
            func exchange() async throws -> Reply {
                Reply(try await world.http.execute(HTTPRequest(
                    method: .get, url: "http://127.0.0.1:\(port)/v1/token-exchange",
                    headers: [("Authorization", "Bearer " + world.validToken())]
                )))
            }
            let before = try await exchange()
            #expect(before.status == 200)
            #expect(Self.keyID(before) == first.privateKeyID)

            // A new key and a new app id: both take effect on SIGHUP, without a restart.
            let second = try SandboxServiceAccount.generate(projectID: "bridge-test")
            try OpsFiles.writePrivate(second.json(), to: keyPath)
            file.appID = TestWorld.otherAppID
            try file.write(to: configPath)
            bridge.signal(SIGHUP)
            _ = try await bridge.waitForLine { $0.contains("reloaded configuration and service account") }
            #expect(try await exchange().code == "kakao_app_mismatch")

            file.appID = TestWorld.appID
            try file.write(to: configPath)
            bridge.signal(SIGHUP)
            try await Self.waitForCount(of: "reloaded configuration and service account", in: bridge, count: 2)
            let after = try await exchange()
            #expect(after.status == 200)
            #expect(Self.keyID(after) == second.privateKeyID)

            // A broken file: the running state stays, the log says why.
            try Data("kakao:\n  app_id: not-a-number\n".utf8).write(to: URL(fileURLWithPath: configPath), options: .atomic)
            bridge.signal(SIGHUP)
            let failure = try await bridge.waitForLine { $0.contains("reload failed") }
            #expect(failure.contains("kakao.app_id"))
            #expect(try await exchange().status == 200)

            // The port cannot change under a running listener: the reload says a restart is needed.
            file.port = 1
            try file.write(to: configPath)
            bridge.signal(SIGHUP)
            let warning = try await bridge.waitForLine { $0.contains("only after a restart") }
            #expect(warning.contains("server.port"))
            #expect(try await exchange().status == 200)

            bridge.signal(SIGTERM)
            #expect(try await bridge.waitForExit() == 0)
            #expect(bridge.lines.allSatisfy { !$0.contains("PRIVATE KEY") })
        }
    }

    static func keyID(_ reply: Reply) -> String? {
        guard let token = reply.json?["custom_token"]?.stringValue,
              let header = token.split(separator: ".").first,
              let bytes = Base64URL.decode(String(header)),
              let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        else { return nil }
        return object["kid"] as? String
    }

    static func waitForCount(of text: String, in bridge: BridgeProcess, count: Int) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(20))
        while bridge.lines.filter({ $0.contains(text) }).count < count {
            guard ContinuousClock.now < deadline else { throw HarnessError("\(text) not logged \(count) times") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension OpsLifecycleTests {
    /// docs/configuration.md#secrets-in-files: a secret's `_file` is read again on SIGHUP, under the same mode rule; a
    /// configuration file without secrets may be world-readable (a ConfigMap is 0644).
    @Test func sighupReadsTheHookSecretFileAgainAndKeepsTheOldStateWhenOthersCanReadIt() async throws {
        try await TestWorld.with { world in
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let first = String(repeating: "a1", count: 20)
            let second = String(repeating: "b2", count: 20)
            let secretPath = directory.appendingPathComponent("hook-secret").path
            try OpsFiles.writePrivate(first + "\n", to: secretPath)
            let configPath = directory.appendingPathComponent("bridge.yaml").path
            try Data("""
                server: {host: 127.0.0.1, port: 0, shutdown_grace_seconds: 1}
                kakao: {app_id: \(TestWorld.appID), api_base_url: "\(world.servers.kakao.baseURL)", cache_seconds: 0}
                firebase:
                  service_account_file: \(world.config.firebase.serviceAccountFile)
                  securetoken_certs_url: "\(world.config.firebase.securetokenCertsURL)"
                  user_sync: off
                hook:
                  secret_file: \(secretPath)
                """.utf8).write(to: URL(fileURLWithPath: configPath))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: configPath)
            let bridge = try BridgeProcess(configPath: configPath)
            defer { bridge.stop() }
            let port = try await bridge.waitForPort()
            // The secret is checked before the body: anything but 401 means the secret was taken.
            func hook(_ secret: String) async throws -> Int {
                Reply(try await world.http.execute(HTTPRequest(
                    method: .post, url: "http://127.0.0.1:\(port)/v1/login-complete",
                    headers: [("Authorization", "Bearer " + secret), ("Content-Type", "application/json")], body: Array("{}".utf8)
                ))).status
            }
            #expect(try await hook(first) != 401)
            #expect(try await hook(second) == 401)

            try OpsFiles.writePrivate(second + "\n", to: secretPath)
            bridge.signal(SIGHUP)
            _ = try await bridge.waitForLine { $0.contains("reloaded configuration and service account") }
            #expect(try await hook(first) == 401)
            #expect(try await hook(second) != 401)

            // Rotated again but readable by everyone: refused, the running secret stays.
            try OpsFiles.writePrivate(first + "\n", to: secretPath)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secretPath)
            bridge.signal(SIGHUP)
            let failure = try await bridge.waitForLine { $0.contains("reload failed") }
            #expect(failure.contains("hook.secret_file") && failure.contains("chmod 600"))
            #expect(try await hook(second) != 401)
            #expect(bridge.lines.allSatisfy { !$0.contains(first) && !$0.contains(second) })

            bridge.signal(SIGTERM)
            #expect(try await bridge.waitForExit() == 0)
        }
    }
}
