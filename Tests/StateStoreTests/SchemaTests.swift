import BridgeSupport
import Foundation
import Logging
import StateStore
import Testing

@Suite("Schema")
struct SchemaTests {
    @Test("migrating again, from either process or both at once, changes nothing", arguments: StoreKind.allCases)
    func migrateTwice(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let id = randomBytes()
            #expect(try await a.useNonce(id: id, expiresAt: 2_000_000) == .first)
            try await a.migrate()
            async let one: Void = a.migrate()
            async let two: Void = b.migrate()
            _ = try await (one, two)
            try await a.ping()
            try await b.ping()
            #expect(try await b.useNonce(id: id, expiresAt: 2_000_000) == .replayed)
        }
    }

    @Test("a SQLite file in a missing directory is unavailable, saying where")
    func sqliteMissingDirectory() async throws {
        let path = "/nonexistent-\(UUID().uuidString)/state.db"
        let error = await #expect(throws: StateStoreError.self) {
            _ = try await SQLiteStateStore.open(path: path, logger: Logger(label: "test"))
        }
        #expect(error?.kind == .unavailable)
        #expect(error?.description.contains(path) == true)
    }

    @Test("an unreachable PostgreSQL is unavailable within the timeout, not a hang")
    func postgresUnreachable() async throws {
        let location = StateStoreURL.PostgresLocation(user: "nobody", host: "127.0.0.1", port: 1, database: "none", sslMode: .disable)
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let store = try await StateStores.open(url: .postgres(location), password: "secret-password", logger: logger)
        let running = Task { try await store.run() }
        defer { running.cancel() }
        let started = ContinuousClock.now
        let error = await #expect(throws: StateStoreError.self) { try await store.ping() }
        #expect(error?.kind == .unavailable)
        #expect(error?.description.contains("secret-password") == false)
        // A hang never ends; the 5 s timeout ends well inside this bound even when the whole suite shares two cores
        // and the timer waits for a free thread of the cooperative pool (it once took 32 s there).
        #expect(ContinuousClock.now - started < .seconds(90))
    }
}
