import BridgeSupport
import Logging
import NIOCore
import NIOPosix
import SQLiteNIO
import ServiceLifecycle

/// A SQLite file (`state.url` = `sqlite:///path`, docs/operations.md#shared-state): durable on one machine, shared by the processes that
/// open the same file. WAL lets readers go on while one writes; the busy timeout makes a writer wait for another
/// process's transaction instead of failing; every read-then-write runs in `BEGIN IMMEDIATE`, which takes the write
/// lock first, so two processes never decide on the same rows.
public final class SQLiteStateStore: StateStore {
    private let connection: SQLiteConnection
    /// A thread of its own: a statement waiting out another process's lock blocks its thread, and must not block
    /// the statement that would free it.
    private let threadPool: NIOThreadPool
    private let serial = SerialAccess()
    let notifier = MarkNotifier()
    let clock: UnixClock
    private let logger: Logger
    let path: String

    private init(connection: SQLiteConnection, threadPool: NIOThreadPool, path: String, clock: UnixClock, logger: Logger) {
        self.connection = connection
        self.threadPool = threadPool
        self.path = path
        self.clock = clock
        self.logger = logger
    }

    /// Opens (creating when missing) the file, sets WAL and the busy timeout, and brings the tables up to date.
    public static func open(
        path: String, logger: Logger, clock: UnixClock = .system, busyTimeoutMilliseconds: Int = 5000
    ) async throws(StateStoreError) -> SQLiteStateStore {
        // docs/operations.md#shared-state: whoever can write the file can queue account actions.
        if let refusal = PrivateFile.writableRefusal(stateFile: path) { throw StateStoreError(.rejected, refusal) }
        // Created private before SQLite opens it (SQLite would make it 0644 under the usual umask); its -wal and -shm
        // files take the database file's mode.
        guard FileBytes.createIfMissing(path: path, mode: 0o600) else {
            // Unavailable, as SQLite's own "cannot open": the directory may be mounted or made later.
            throw StateStoreError(.unavailable, "open \(path): the file cannot be created (is its directory there?)")
        }
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path), threadPool: threadPool, logger: logger,
                on: MultiThreadedEventLoopGroup.singleton.any()
            )
        } catch {
            try? await threadPool.shutdownGracefully()
            throw Self.storeError(error, doing: "open \(path)")
        }
        let store = SQLiteStateStore(connection: connection, threadPool: threadPool, path: path, clock: clock, logger: logger)
        do throws(StateStoreError) {
            // busy_timeout replaces SQLiteNIO's handler that would wait forever.
            _ = try await store.rows("PRAGMA busy_timeout = \(max(busyTimeoutMilliseconds, 0))")
            let mode = try await store.rows("PRAGMA journal_mode = WAL")
            if mode.first?.column("journal_mode")?.string?.lowercased() != "wal" {
                throw StateStoreError(.rejected, "\(path): could not switch to WAL journal mode")
            }
            // FULL: an acknowledged unlink event survives a power cut, not just a crash.
            _ = try await store.rows("PRAGMA synchronous = FULL")
            try await store.migrate()
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    public func run() async throws {
        try? await gracefulShutdown()
    }

    public func close() async {
        notifier.finish()
        await serial.run {
            try? await connection.close()
        }
        try? await threadPool.shutdownGracefully()
    }

    // MARK: Schema

    public func ping() async throws(StateStoreError) {
        let rows = try await rows("SELECT max(version) AS version FROM kakao_bridge_schema")
        guard let version = rows.first?.column("version")?.integer, Int(version) >= SQLiteSchema.latestVersion else {
            throw StateStoreError(.rejected, "\(path): the tables are not ready")
        }
    }

    public func migrate() async throws(StateStoreError) {
        try await transaction { () throws(StateStoreError) in
            _ = try await unlockedRows("CREATE TABLE IF NOT EXISTS kakao_bridge_schema (version INTEGER NOT NULL PRIMARY KEY)")
            let rows = try await unlockedRows("SELECT coalesce(max(version), 0) AS version FROM kakao_bridge_schema")
            let current = Int(try rows.first?.int64("version") ?? 0)
            if current > SQLiteSchema.latestVersion {
                // A newer kakao-bridge moved the tables forward; its migrations only add, so this one can go on.
                logger.notice("state store tables are newer than this build", metadata: ["version": "\(current)"])
                return
            }
            for migration in SQLiteSchema.migrations where migration.version > current {
                for statement in migration.statements { _ = try await unlockedRows(statement) }
                _ = try await unlockedRows("INSERT INTO kakao_bridge_schema (version) VALUES (?)", [.int(Int64(migration.version))])
                logger.info("state store migrated", metadata: ["version": "\(migration.version)"])
            }
        }
    }

    // MARK: Statements

    /// One statement, on its own (SQLite wraps it in a transaction of its own).
    func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws(StateStoreError) -> [SQLiteRow] {
        try await serial.run { () throws(StateStoreError) in try await unlockedRows(sql, binds) }
    }

    /// Only inside `serial.run`.
    func unlockedRows(_ sql: String, _ binds: [SQLiteData] = []) async throws(StateStoreError) -> [SQLiteRow] {
        do {
            return try await connection.query(sql, binds)
        } catch {
            throw Self.storeError(error, doing: "query")
        }
    }

    /// `body` between `BEGIN IMMEDIATE` and `COMMIT`, with this connection to itself; rolled back when it throws.
    func transaction<T>(_ body: () async throws(StateStoreError) -> T) async throws(StateStoreError) -> T {
        try await serial.run { () throws(StateStoreError) -> T in
            _ = try await unlockedRows("BEGIN IMMEDIATE")
            do throws(StateStoreError) {
                let value = try await body()
                _ = try await unlockedRows("COMMIT")
                return value
            } catch {
                _ = try? await unlockedRows("ROLLBACK")
                throw error
            }
        }
    }

    static func events(_ rows: [SQLiteRow]) throws(StateStoreError) -> [AccountEvent] {
        var events: [AccountEvent] = []
        for row in rows { events.append(try row.unlinkEvent()) }
        return events
    }

    /// Busy, locked, I/O and open failures may pass; the rest needs an operator.
    static func storeError(_ error: any Error, doing what: String) -> StateStoreError {
        guard let error = error as? SQLiteError else {
            return StateStoreError(.unavailable, "\(what): \(String(describing: type(of: error)))")
        }
        switch error.reason {
        case .busy, .locked, .ioError, .cantOpen, .full, .noMemory, .interrupt,
             .busyTimeout, .busyInSnapshot, .busyInRecovery:
            return StateStoreError(.unavailable, "\(what): \(error.message)")
        default:
            return StateStoreError(.rejected, "\(what): \(error.message)")
        }
    }
}
