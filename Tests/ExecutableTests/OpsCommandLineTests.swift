import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import StandIns
import Synchronization
import Testing
import EndToEndSupport
import BridgeTestSupport

/// Issue 44, the command line as an operator meets it (docs/operations.md): the state store's real cause in
/// `check-config` and once in `serve`; a port in use as one line and exit 78; `unlinks` with only the store's keys;
/// `health` for Docker's HEALTHCHECK. Each runs the real executable.
@Suite(.serialized) struct OpsCommandLineTests {
    /// A configuration `check-config` accepts up to its store.
    static func config(_ directory: TemporaryDirectory, store url: String, password: String? = nil) throws -> String {
        let account = directory.path + "/service-account.json"
        if !FileManager.default.fileExists(atPath: account) { _ = try directory.serviceAccount() }
        return try directory.configFile(account: account, adding: """
            state:
              url: "\(url)"
            \(password.map { "  password: \"\($0)\"" } ?? "")
            """)
    }

    @Test func checkConfigSaysWhyPostgreSQLCannotBeUsed() async throws {
        let directory = try TemporaryDirectory()
        let server = try await FleetPostgres.server.value
        let base = "postgres://\(server.user)@\(server.host):\(server.port)"
        let files = (
            try Self.config(directory, store: "postgres://kb@127.0.0.1:9/kb?sslmode=disable"),
            try Self.config(directory, store: base + "/kb_no_such_database?sslmode=disable"),
            try Self.config(directory, store: base + "/postgres?sslmode=require")
        )
        // Together: each waits for the store's 5 s.
        async let refused = CLIProcess.run(["check-config", "--config", files.0], timeout: .seconds(60))
        async let noDatabase = CLIProcess.run(["check-config", "--config", files.1], timeout: .seconds(60))
        async let tls = CLIProcess.run(["check-config", "--config", files.2], timeout: .seconds(60))
        for (run, cause) in [(try await refused, "connection refused"), (try await noDatabase, "3D000"), (try await tls, "TLS")] {
            #expect(run.status == 78, "\(run.stderr)")
            #expect(run.stderr.contains(cause), "\(cause) not said in: \(run.stderr)")
        }

        // A wrong password (28P01) and a missing one, for a role the server checks by password.
        // Skipped only against an outside server (`KB_TEST_POSTGRES_URL`), which is not reconfigured.
        let outside = !(ProcessInfo.processInfo.environment["KB_TEST_POSTGRES_URL"] ?? "").isEmpty
        guard let role = try PasswordRole.make(server) else {
            if !outside { Issue.record("the throwaway server could not be given a password role") }
            return
        }
        let url = "postgres://\(role.name)@\(server.host):\(server.port)/postgres?sslmode=disable"
        let wrongFile = try Self.config(directory, store: url, password: "not-the-password")
        let missingFile = try Self.config(directory, store: url)
        async let wrong = CLIProcess.run(["check-config", "--config", wrongFile], timeout: .seconds(60))
        async let missing = CLIProcess.run(["check-config", "--config", missingFile], timeout: .seconds(60))
        let (wrongRun, missingRun) = (try await wrong, try await missing)
        #expect(wrongRun.status == 78)
        #expect(wrongRun.stderr.contains("28P01"), "\(wrongRun.stderr)")
        #expect(!wrongRun.stderr.contains("not-the-password"))
        #expect(missingRun.status == 78)
        #expect(missingRun.stderr.contains("none is set"), "\(missingRun.stderr)")
    }

    /// `serve` keeps trying, and says why once, at warning: not PostgresNIO's info line on every retry.
    @Test func serveSaysTheStoresCauseOnceAtWarning() async throws {
        let directory = try OpsFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await FleetPostgres.server.value
        let keyPath = directory.appendingPathComponent("service-account.json").path
        try OpsFiles.writePrivate(try SandboxServiceAccount.generate().json(), to: keyPath)
        var file = OpsConfigFile(kakaoURL: "http://127.0.0.1:9", serviceAccountFile: keyPath)
        file.extra = """
            state:
              url: "postgres://\(server.user)@\(server.host):\(server.port)/kb_no_such_database?sslmode=disable"
            """
        let configPath = directory.appendingPathComponent("bridge.yaml").path
        try file.write(to: configPath)
        let bridge = try BridgeProcess(configPath: configPath)
        defer { bridge.stop() }
        _ = try await bridge.waitForPort()
        let warning = try await bridge.waitForLine { $0.contains("state store: cannot connect") }
        // The pool retries about once a second: several retries later, still one line.
        try await Task.sleep(for: .seconds(4))
        let said = bridge.lines.filter { $0.contains("state store: cannot connect") }
        #expect(said.count == 1, "\(said)")
        #expect(warning.contains(#""level":"warning""#), "\(warning)")
        #expect(warning.contains("3D000"), "\(warning)")
        #expect(!bridge.lines.contains { $0.contains("Connection creation failed") }, "\(bridge.lines.suffix(10))")
    }

    @Test func serveOnAPortInUseSaysSoInOneLineAndExits78() async throws {
        let held = try HeldPort()
        defer { held.close() }
        let directory = try TemporaryDirectory()
        let file = try directory.configFile(adding: """
            server:
              host: 127.0.0.1
              port: \(held.port)
            """)
        let run = try await CLIProcess.run(["serve", "--config", file], timeout: .seconds(60))
        #expect(run.status == 78, "\(run.stdout)\n\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("127.0.0.1:\(held.port)"), "\(run.stderr)")
        #expect(run.stderr.contains("server.port"), "\(run.stderr)")
        #expect(run.stderr.contains("already in use"), "\(run.stderr)")
        #expect(!run.stdout.contains(#""level":"error""#), "\(run.stdout)")
        #expect(!run.stderr.contains("IOError") && !run.stderr.contains("NIO"), "\(run.stderr)")
    }

    /// docs/operations.md#unlink-events: run by hand beside the service, where its other secrets cannot be read.
    @Test func unlinksNeedsOnlyTheStateKeys() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("bridge.yaml", """
            kakao:
              admin_key_file: /nonexistent/kakao-admin-key
            firebase:
              web_api_key_file: /nonexistent/web-api-key
            hook:
              secret_file: /nonexistent/hook-secret
            state:
              url: "sqlite://\(directory.path)/state.db"
            log:
              level: info
            """)
        let run = try await CLIProcess.run(["unlinks", "--config", file], timeout: .seconds(60))
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.isEmpty)
        // Its own keys are still checked, and a typo anywhere is still one.
        let typo = try directory.write("typo.yaml", "kakao:\n  app_idd: 1\nstate:\n  url: \"sqlite://\(directory.path)/state.db\"\n")
        let refused = try await CLIProcess.run(["unlinks", "--config", typo], timeout: .seconds(60))
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("app_idd"), "\(refused.stderr)")
    }

    /// docs/operations.md#health-check: what the image's HEALTHCHECK runs.
    @Test func healthAsksReadyzOfTheRunningServiceAndExits0Or1() async throws {
        let directory = try OpsFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("service-account.json").path
        try OpsFiles.writePrivate(try SandboxServiceAccount.generate().json(), to: keyPath)
        var file = OpsConfigFile(kakaoURL: "http://127.0.0.1:9", serviceAccountFile: keyPath)
        let reserved = try HeldPort()
        let port = reserved.port
        reserved.close()
        file.adminPort = port
        let configPath = directory.appendingPathComponent("bridge.yaml").path
        try file.write(to: configPath)

        let nobody = try await CLIProcess.run(["health", "--config", configPath], timeout: .seconds(30))
        #expect(nobody.status == 1, "\(nobody.stdout)\n\(nobody.stderr)")
        #expect(nobody.stdout.contains("127.0.0.1:\(port)/readyz"), "\(nobody.stdout)")

        let bridge = try BridgeProcess(configPath: configPath)
        defer { bridge.stop() }
        _ = try await bridge.waitForLine { $0.contains("admin port listening") }
        var run = try await CLIProcess.run(["health", "--config", configPath], timeout: .seconds(30))
        let start = ContinuousClock.now
        while run.status != 0, ContinuousClock.now - start < .seconds(15) {
            try await Task.sleep(for: .milliseconds(200))
            run = try await CLIProcess.run(["health", "--config", configPath], timeout: .seconds(30))
        }
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 1, "\(run.stdout)")
        #expect(run.stdout.contains("ready"))
    }

    /// `/metrics` shows only the upstreams this configuration uses, and counts reloads by outcome.
    @Test func metricsShowOnlyTheUpstreamsInUseAndCountReloads() async throws {
        try await TestWorld.with { world in
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let configPath = directory.appendingPathComponent("bridge.yaml").path
            let file = OpsConfigFile(kakaoURL: world.servers.kakao.baseURL, serviceAccountFile: world.config.firebase.serviceAccountFile)
            try file.write(to: configPath)
            let bridge = try BridgeProcess(configPath: configPath)
            defer { bridge.stop() }
            let base = "http://127.0.0.1:\(try await bridge.waitForPort())"
            func get(_ path: String, _ headers: [(String, String)] = []) async throws -> Reply {
                Reply(try await world.http.execute(HTTPRequest(method: .get, url: base + path, headers: headers)))
            }
            #expect(try await get("/v1/token-exchange", [("Authorization", "Bearer " + world.validToken())]).status == 200)

            var metrics = try await get("/metrics").text
            #expect(metrics.contains(#"kakao_bridge_upstream_calls_total{upstream="kakao",outcome="ok"}"#))
            for unused in ["identity_toolkit", "backend", "backend_unlink", "backend_events", "admin_api", "google_token",
                           "kakao_keys", "metadata", "iam_credentials"] {
                #expect(!metrics.contains("upstream=\"\(unused)\""), "\(unused) has series though it is not configured")
            }
            #expect(!metrics.contains(#"outcome="overloaded",le="#), "histograms of outcomes that never happened")
            #expect(MetricsText.value(of: #"kakao_bridge_reloads_total{outcome="applied"}"#, in: metrics) == 0)
            #expect(metrics.contains(#"kakao_bridge_reloads_total{outcome="refused"} 0"#), "\(metrics)")

            bridge.signal(SIGHUP)
            _ = try await bridge.waitForLine { $0.contains("reloaded configuration and service account") }
            try Data("kakao:\n  app_id: not-a-number\n".utf8).write(to: URL(fileURLWithPath: configPath), options: .atomic)
            bridge.signal(SIGHUP)
            _ = try await bridge.waitForLine { $0.contains("reload failed") }
            // The counter moves just after the log line is written: read until it has, for at most 10 s.
            let refused = #"kakao_bridge_reloads_total{outcome="refused"}"#
            for _ in 0..<200 {
                metrics = try await get("/metrics").text
                if MetricsText.value(of: refused, in: metrics) == 1 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(MetricsText.value(of: #"kakao_bridge_reloads_total{outcome="applied"}"#, in: metrics) == 1, "\(metrics)")
            #expect(MetricsText.value(of: #"kakao_bridge_reloads_total{outcome="refused"}"#, in: metrics) == 1, "\(metrics)")
        }
    }
}

/// A loopback port held by a listening socket of the test, until `close`.
final class HeldPort: @unchecked Sendable {
    let port: Int
    private var fd: Int32

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = fd
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound, listen(fd, 8) == 0 else { throw HarnessError("bind()/listen() failed") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

/// A role of the throwaway PostgreSQL that must give its password (scram-sha-256): the server's own rule, written at the
/// top of its pg_hba.conf for that role alone. Nil when the server is not one this process may reconfigure (an outside
/// `KB_TEST_POSTGRES_URL`).
enum PasswordRole {
    struct Made {
        var name: String
    }

    static let made: Mutex<Made?> = Mutex(nil)

    static func make(_ server: FleetPostgres.Server) throws -> Made? {
        if let made = made.withLock({ $0 }) { return made }
        // Only the throwaway server of this process is reconfigured, never one named from outside.
        if let outside = ProcessInfo.processInfo.environment["KB_TEST_POSTGRES_URL"], !outside.isEmpty { return nil }
        let psql = URL(fileURLWithPath: server.createdb).deletingLastPathComponent().appendingPathComponent("psql").path
        func sql(_ statement: String) throws -> (Int32, String) {
            try FleetPostgres.run(psql, [
                "--host=\(server.host)", "--port=\(server.port)", "--username=\(server.user)", "--no-password", "--dbname=postgres",
                "--tuples-only", "--no-align", "--command=\(statement)",
            ])
        }
        let name = "kb_password_role"
        _ = try sql("CREATE ROLE \(name) LOGIN PASSWORD 'the-right-password'")
        let (status, hbaPath) = try sql("SHOW hba_file")
        let path = hbaPath.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, let current = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let rule = "host all \(name) 127.0.0.1/32 scram-sha-256\n"
        if !current.hasPrefix(rule) {
            guard (try? (rule + current).write(toFile: path, atomically: false, encoding: .utf8)) != nil else { return nil }
        }
        guard try sql("SELECT pg_reload_conf()").0 == 0 else { return nil }
        let made = Made(name: name)
        self.made.withLock { $0 = made }
        return made
    }
}
