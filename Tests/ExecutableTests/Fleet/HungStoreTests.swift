import BridgeJSON
import BridgeSupport
import Foundation
import PostgresTestSupport
import StandIns
import Testing
import EndToEndSupport

/// docs/operations.md#shared-state: a PostgreSQL that stops answering (its processes stopped, or the service's tables
/// locked by someone else) holds no request past its limit. Kakao's webhooks answer within 3 s, the store is marked
/// unreachable within 5 s, and from then on what needs the store answers 503 `state_unavailable` at once while
/// `/readyz` stays 200 and says so (access-token logins need no store); once the store answers again, all of it works.
@Suite("A state store that hangs", .serialized)
struct HungStoreTests {
    /// The webhooks' user: not the one who logs in, so that an event a stopped store records late ends no login here.
    static let kakaoID: Int64 = 4242

    static var settings: FleetSettings {
        var settings = FleetSettings()
        settings.oidc = true
        settings.unlink = true
        settings.securityEvents = true
        settings.cacheSeconds = 0
        return settings
    }

    @Test func aStoppedPostgreSQLHoldsNoRequestAndDoesNotEmptyTheLoadBalancer() async throws {
        // Off Swift's thread pool, as every blocking call here: initdb and psql take seconds, and other tests need those threads.
        let server = try await offPool { try DedicatedPostgres.start() }
        defer { server.stop() }
        try await Fleet.with(.postgres, Self.settings, stateURL: server.url) { fleet in
            let instance = try await fleet.start("A")
            try await Self.expectEverythingWorks(fleet, instance)

            server.signal(SIGSTOP)
            defer { server.signal(SIGCONT) }
            try await Self.expectAHungStoreHoldsNothing(fleet, instance)

            server.signal(SIGCONT)
            try await Self.expectRecovery(fleet, instance)
        }
    }

    @Test func aHeldTableLockHoldsNoRequest() async throws {
        try await Fleet.with(.postgres, Self.settings) { fleet in
            let instance = try await fleet.start("A")
            try await Self.expectEverythingWorks(fleet, instance)

            let url = fleet.state.url
            let lock = try await offPool { try TableLock.hold(url, tables: [
                "kakao_bridge.kakao_bridge_nonces", "kakao_bridge.kakao_bridge_unlink_events", "kakao_bridge.kakao_bridge_unlink_marks",
            ]) }
            defer { lock.release() }
            try await Self.expectAHungStoreHoldsNothing(fleet, instance)

            try await offPool { lock.release() }
            try await Self.expectRecovery(fleet, instance)
        }
    }

    // MARK: The three phases

    static func expectEverythingWorks(_ fleet: Fleet, _ instance: FleetInstance) async throws {
        let ready = try await instance.get("/readyz")
        #expect(ready.status == 200)
        #expect(ready.json?["state_store"]?.stringValue == "reachable", "\(ready.text)")
        let login = try await instance.exchange(try fleet.idToken(nonce: try await instance.nonce()))
        #expect(login.status == 200, "\(login.text)")
        #expect(try await Self.storeUp(instance) == 1)
    }

    static func expectAHungStoreHoldsNothing(_ fleet: Fleet, _ instance: FleetInstance) async throws {
        // Kakao's webhook: answered within its 3 s, 503 (an event that cannot be kept is never acknowledged).
        let webhookStart = ContinuousClock.now
        let webhook = try await instance.unlinkWebhook(userID: Self.kakaoID)
        let webhookTook = ContinuousClock.now - webhookStart
        #expect(webhook.status == 503, "\(webhook.text)")
        #expect(webhook.code == "state_unavailable")
        #expect(webhookTook < .seconds(3), "the unlink webhook took \(webhookTook)")

        // Within the store's 5 s limit the instance knows, and stays in rotation saying so.
        let marked = try await fleetEventually(within: .seconds(8)) {
            let ready = try await instance.get("/readyz")
            return ready.status == 200 && ready.json?["state_store"]?.stringValue == "unreachable"
        }
        #expect(marked != nil, "/readyz never said the store is unreachable")
        #expect(try await Self.storeUp(instance) == 0)

        // What needs the store answers at once; an access-token login needs none and works.
        let set = try fleet.world.kakao.securityEventToken(payload: KakaoStandIn.securityEventPayload(
            type: KakaoSecurityEventType.sessionsRevoked.rawValue, userID: Self.kakaoID, audience: SecurityEventsOn.audience
        ))
        for (name, request) in [
            ("security event", { try await instance.postSecurityEvent(set) }),
            ("unlink webhook", { try await instance.unlinkWebhook(userID: Self.kakaoID) }),
            ("ID-token login", { try await instance.exchange(try fleet.idToken(nonce: try await instance.nonce())) }),
        ] as [(String, () async throws -> Reply)] {
            let start = ContinuousClock.now
            let reply = try await request()
            let took = ContinuousClock.now - start
            #expect(reply.status == 503, "\(name): \(reply.text)")
            #expect(reply.code == "state_unavailable", "\(name)")
            #expect(took < .seconds(1), "\(name) took \(took) with the store known to be unreachable")
        }
        let login = try await instance.exchange(fleet.world.validToken())
        #expect(login.status == 200, "an access-token login needs no store: \(login.text)")
    }

    static func expectRecovery(_ fleet: Fleet, _ instance: FleetInstance) async throws {
        let back = try await fleetEventually(within: .seconds(15)) {
            try await instance.get("/readyz").json?["state_store"]?.stringValue == "reachable"
        }
        #expect(back != nil, "the store never became reachable again")
        let login = try await instance.exchange(try fleet.idToken(nonce: try await instance.nonce()))
        #expect(login.status == 200, "\(login.text)")
        #expect(try await instance.unlinkWebhook(userID: Self.kakaoID).status == 200)
        #expect(try await Self.storeUp(instance) == 1)
    }

    /// `kakao_bridge_state_store_up` as `/metrics` shows it.
    static func storeUp(_ instance: FleetInstance) async throws -> Int? {
        let metrics = try await instance.get("/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("kakao_bridge_state_store_up ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) }
    }
}

/// A PostgreSQL server of this test's own (scripts/postgres-test-server), so that stopping it stops no other test.
struct DedicatedPostgres {
    let directory: String
    let url: String

    static func start() throws -> DedicatedPostgres {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kb-hung-\(UUID().uuidString)").path
        return DedicatedPostgres(directory: directory, url: try ThrowawayPostgres.startServer(in: directory))
    }

    /// The postmaster and every process it started.
    func signal(_ signal: Int32) {
        guard let pidFile = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
              let first = pidFile.split(separator: "\n").first, let postmaster = Int32(first) else { return }
        // Its children, from /proc: the fourth field of /proc/PID/stat is the parent's pid.
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let children = entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == postmaster
        }
        for pid in [postmaster] + children { kill(pid, signal) }
    }

    func stop() {
        signal(SIGCONT)
        ThrowawayPostgres.stopServer(in: directory)
    }
}

/// Another client of the database holding `ACCESS EXCLUSIVE` locks on the service's tables, as a long migration or an
/// operator's stray transaction would, until released.
final class TableLock: Sendable {
    private let process: Process
    private let input: Pipe

    private init(process: Process, input: Pipe) {
        self.process = process
        self.input = input
    }

    static func hold(_ url: String, tables: [String]) throws -> TableLock {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try psqlPath())
        process.arguments = ["--no-psqlrc", "--quiet", "-v", "ON_ERROR_STOP=1", url]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let statements = "BEGIN;\n" + tables.map { "LOCK TABLE \($0) IN ACCESS EXCLUSIVE MODE;\n" }.joined() + "SELECT 'locked';\n"
        input.fileHandleForWriting.write(Data(statements.utf8))
        // Held once psql has said so.
        var seen = ""
        let deadline = Date().addingTimeInterval(10)
        while !seen.contains("locked"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        guard seen.contains("locked") else {
            process.terminate()
            throw HarnessError("psql did not take the locks: \(seen)")
        }
        return TableLock(process: process, input: input)
    }

    /// Ends the session (and with it the transaction and its locks): psql ends at the end of its input; it does not
    /// end on SIGTERM while it waits for a line, so SIGKILL follows if it is still there.
    func release() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private static func psqlPath() throws -> String {
        let roots = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        if let newest = roots.compactMap(Int.init).sorted().last,
           FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(newest)/bin/psql") {
            return "/usr/lib/postgresql/\(newest)/bin/psql"
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/psql") { return "/usr/bin/psql" }
        throw HarnessError("no psql found (scripts/setup installs postgresql)")
    }
}
