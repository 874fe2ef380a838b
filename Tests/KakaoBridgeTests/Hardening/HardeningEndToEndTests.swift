import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes
#if canImport(Glibc)
import Glibc
#endif

/// Second hardening round, what only a real listener, a real Kakao stand-in or a real process shows.
@Suite(.serialized) struct HardeningEndToEndTests {
    @Test func profileImagesComeAsHTTPS() async throws {
        try await TestWorld.with { world in
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            let url = try #require(reply.json?["kakao"]?["profile_image_url"]?.stringValue)
            #expect(url.hasPrefix("https://"), "\(url)")
        }
    }

    @Test func aRequestThatDribblesIsCutOff() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.server.requestTimeoutSeconds = 1 }
        try await TestWorld.with(options) { world in
            let answer = try await offPool { () throws -> HostileClient.Answer in
                let client = try HostileClient.connect(port: world.bridge.port)
                defer { client.close() }
                client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
                // One more header byte now and then, each well inside the idle timeout.
                for _ in 0..<3 {
                    Thread.sleep(forTimeInterval: 0.4)
                    client.send("X")
                }
                return try client.readAnswer(timeout: .seconds(3))
            }
            #expect(answer.status == 400)
            #expect(answer.code == "invalid_request")
            #expect(answer.isProblem)
            // A whole request in time is served as ever.
            #expect(try await world.get("/healthz").status == 200)
        }
    }

    @Test func pastTheConnectionCapANewConnectionGetsAFast503() async throws {
        var options = TestWorld.Options()
        // The cap of the whole listener, not the per-client one (whose default would be 1 here).
        options.configure = {
            $0.server.maxConnections = 2
            $0.server.maxConnectionsPerClient = 2
        }
        try await TestWorld.with(options) { world in
            let port = world.bridge.port
            let held = try await offPool { [try HostileClient.connect(port: port), try HostileClient.connect(port: port)] }
            defer { held.forEach { $0.close() } }
            try await Task.sleep(for: .milliseconds(100))
            let started = ContinuousClock.now
            let answer = try await HostileClient.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", timeout: .seconds(3))
            #expect(answer.status == 503)
            #expect(answer.code == "not_ready")
            #expect(answer.isProblem)
            #expect(ContinuousClock.now - started < .seconds(2), "the refusal waited")
            // The held connections still work.
            held[0].send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await held[0].answer().status == 200)
        }
    }

    /// Security issue 27: with `server.max_connections` at 20, twenty idle sockets from one address gave everyone else
    /// 503 until they closed. Now one address holds at most a quarter of them (the default of
    /// `server.max_connections_per_client`); the rest get a fast 429, and another address is served.
    @Test func twentyIdleSocketsFromOneAddressDoNotLockOutAnother() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.server.maxConnections = 20 }
        try await TestWorld.with(options) { world in
            let port = world.bridge.port
            let held = try await offPool { try (0..<20).map { _ in try HostileClient.connect(port: port, from: "127.0.0.1") } }
            defer { held.forEach { $0.close() } }
            try await Task.sleep(for: .milliseconds(300))
            // Which five are let in depends on which event loop sees its connection first; the refused ones have their
            // answer waiting.
            let answered = try await offPool { held.map { $0.hasDataWaiting() ? try? $0.readAnswer(timeout: .seconds(1)) : nil } }
            let refused = answered.compactMap { $0 }
            #expect(refused.count == 15, "\(refused.map(\.status))")
            for answer in refused {
                #expect(answer.status == 429)
                #expect(answer.code == "rate_limited")
                #expect(answer.isProblem)
                #expect(answer.headers["retry-after"] == "1")
            }
            let other = try await HostileClient.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", from: "127.0.0.2")
            #expect(other.status == 200, "another address was locked out: \(other.status) \(other.code ?? "")")
            // The ones let in are served.
            let admitted = try #require(held.indices.first { answered[$0] == nil })
            held[admitted].send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await held[admitted].answer().status == 200)
        }
    }

    /// Behind a proxy every connection comes from the proxy: a trusted proxy's address is not capped per client.
    @Test func aTrustedProxyIsNotCappedPerClient() async throws {
        var options = TestWorld.Options()
        options.configure = {
            $0.server.maxConnections = 20
            $0.server.maxConnectionsPerClient = 2
            $0.server.trustedProxies = [CIDR("127.0.0.2/32")!]
        }
        try await TestWorld.with(options) { world in
            let port = world.bridge.port
            let proxy = try await offPool { try (0..<6).map { _ in try HostileClient.connect(port: port, from: "127.0.0.2") } }
            defer { proxy.forEach { $0.close() } }
            proxy[5].send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await proxy[5].answer().status == 200)
            let clients = try await offPool { try (0..<3).map { _ in try HostileClient.connect(port: port, from: "127.0.0.3") } }
            defer { clients.forEach { $0.close() } }
            #expect(try await clients[2].answer().status == 429)
        }
    }

    /// An idle socket waited for the 75 s keep-alive timeout (kept for nginx's upstream connections); now a connection
    /// that sends nothing within `server.first_request_timeout_seconds` of opening is closed. Between requests the
    /// keep-alive timeout still applies.
    @Test func anIdleSocketIsClosedAfterTheFirstRequestTimeout() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.server.firstRequestTimeoutSeconds = 1 }
        try await TestWorld.with(options) { world in
            let port = world.bridge.port
            let (silent, talking) = try await offPool { (try HostileClient.connect(port: port), try HostileClient.connect(port: port)) }
            defer {
                silent.close()
                talking.close()
            }
            let opened = ContinuousClock.now
            talking.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await talking.answer().status == 200)
            #expect(try await silent.closed(within: .seconds(4)), "a silent connection is still open")
            let waited = ContinuousClock.now - opened
            #expect(waited >= .milliseconds(900) && waited < .seconds(3), "closed after \(waited)")
            // The connection that sent a request is still open past the first-request timeout, and serves the next one.
            try await Task.sleep(for: .milliseconds(800))
            talking.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await talking.answer().status == 200)
        }
    }

    /// The key file is a FIFO: start-up blocks reading it, after `main` ran and before any handler is installed. A
    /// SIGHUP then must not end the process (its default action would).
    @Test func aHangupBeforeTheReloadHandlerIsIgnored() async throws {
        try await EndToEndLock.run {
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let fifo = directory.appendingPathComponent("service-account.json").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let configPath = directory.appendingPathComponent("bridge.yaml").path
            try OpsConfigFile(kakaoURL: "http://127.0.0.1:9", serviceAccountFile: fifo).write(to: configPath)
            let process = try BridgeProcess(configPath: configPath)
            defer { process.stop() }
            let key = try SandboxServiceAccount.generate().json()
            let survived = try await offPool { () -> Bool in
                // Opening for writing succeeds once the service has opened the FIFO for reading: it is inside start-up.
                // Non-blocking, so that a service that never gets there fails the test instead of hanging it.
                var writer: Int32 = -1
                let deadline = ContinuousClock.now + .seconds(20)
                while writer < 0, ContinuousClock.now < deadline, process.exitStatus == nil {
                    writer = open(fifo, O_WRONLY | O_NONBLOCK)
                    if writer < 0 { Thread.sleep(forTimeInterval: 0.01) }
                }
                guard writer >= 0 else { return false }
                process.signal(SIGHUP)
                Thread.sleep(forTimeInterval: 0.3)
                let alive = process.process.isRunning
                _ = key.withCString { write(writer, $0, strlen($0)) }
                close(writer)
                return alive
            }
            #expect(survived, "SIGHUP during start-up ended the process")
            let port = try await process.waitForPort()
            #expect(try await HostileClient.exchange(port: port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").status == 200)
        }
    }
}
