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
    private let notifier = MarkNotifier()
    private let clock: UnixClock
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

    // MARK: Nonces

    public func useNonce(id: [UInt8], expiresAt: Int64) async throws(StateStoreError) -> NonceUse {
        let inserted = try await rows(
            "INSERT INTO kakao_bridge_nonces (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING RETURNING id",
            [.blob(ByteBuffer(bytes: id)), .int(expiresAt)]
        )
        return inserted.isEmpty ? .replayed : .first
    }

    // MARK: Unlink marks

    public func setUnlinkMark(kakaoID: Int64, at: Int64) async throws(StateStoreError) {
        try await recordMark(
            kakaoID: kakaoID, at: at,
            """
            INSERT INTO kakao_bridge_unlink_marks (kakao_id, unlinked_at, seq) VALUES (?1, ?2, ?3)
            ON CONFLICT (kakao_id) DO UPDATE SET unlinked_at = max(unlinked_at, excluded.unlinked_at), seq = excluded.seq
            """
        )
    }

    public func recordChange(kakaoID: Int64, at: Int64) async throws(StateStoreError) {
        try await recordMark(
            kakaoID: kakaoID, at: at,
            """
            INSERT INTO kakao_bridge_unlink_marks (kakao_id, unlinked_at, changed_at, seq) VALUES (?1, 0, ?2, ?3)
            ON CONFLICT (kakao_id) DO UPDATE SET changed_at = max(changed_at, excluded.changed_at), seq = excluded.seq
            """
        )
    }

    /// One mark written with the next sequence number (`?1` the Kakao id, `?2` the time, `?3` the number).
    private func recordMark(kakaoID: Int64, at: Int64, _ statement: String) async throws(StateStoreError) {
        try await transaction { () throws(StateStoreError) in
            let seq = try await unlockedRows("UPDATE kakao_bridge_unlink_mark_seq SET value = value + 1 RETURNING value")
            guard let next = try seq.first?.int64("value") else {
                throw StateStoreError(.incompatibleSchema, "kakao_bridge_unlink_mark_seq is empty")
            }
            _ = try await unlockedRows(statement, [.int(kakaoID), .int(at), .int(next)])
        }
        notifier.notify()
    }

    public func unlinkMarks(after cursor: Int64) async throws(StateStoreError) -> UnlinkMarkPage {
        let rows = try await rows(
            "SELECT kakao_id, unlinked_at, changed_at, seq FROM kakao_bridge_unlink_marks WHERE seq > ? ORDER BY seq", [.int(cursor)]
        )
        var marks: [UnlinkMark] = []
        var last = cursor
        for row in rows {
            marks.append(UnlinkMark(
                kakaoID: try row.int64("kakao_id"), at: try row.int64("unlinked_at"), changedAt: try row.int64("changed_at")
            ))
            last = try row.int64("seq")
        }
        return UnlinkMarkPage(marks: marks, cursor: last)
    }

    public func markNotifications() -> AsyncStream<Void> { notifier.stream() }

    // MARK: The unlink queue

    public func enqueue(_ event: AccountEvent) async throws(StateStoreError) -> Bool {
        let inserted = try await rows(
            """
            INSERT INTO kakao_bridge_unlink_events (\(UnlinkEventColumns.list))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO NOTHING RETURNING id
            """,
            [
                .text(event.id), .int(event.kakaoID), .text(event.reason), .int(event.receivedAt), .int(event.deadline),
                .text(event.state.rawValue), .int(event.nextAttemptAt), .optionalText(event.lastErrorCode),
                .optionalText(event.uid), .optionalText(event.leaseOwner), .int(event.leaseExpiresAt),
                .text(event.firebase.state.rawValue), .int(Int64(event.firebase.attempts)),
                .int(event.firebase.nextAttemptAt), .optionalText(event.firebase.lastErrorCode),
                .text(event.backend.state.rawValue), .int(Int64(event.backend.attempts)),
                .int(event.backend.nextAttemptAt), .optionalText(event.backend.lastErrorCode), .optionalText(event.eventType),
                .optionalText(event.provider), .optionalText(event.providerID),
                .text(event.kind.rawValue), .optionalText(event.linkRecord), .text(event.providerUnlink.state.rawValue),
                .int(Int64(event.providerUnlink.attempts)), .int(event.providerUnlink.nextAttemptAt),
                .optionalText(event.providerUnlink.lastErrorCode),
            ]
        )
        return !inserted.isEmpty
    }

    public func claimDue(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws(StateStoreError) -> [AccountEvent] {
        let rows = try await transaction { () throws(StateStoreError) in
            try await unlockedRows(
                """
                UPDATE kakao_bridge_unlink_events SET lease_owner = ?1, lease_expires_at = ?2 + ?3
                WHERE id IN (
                    SELECT id FROM kakao_bridge_unlink_events
                    WHERE state = 'pending' AND next_attempt_at <= ?2 AND (lease_owner IS NULL OR lease_expires_at <= ?2)
                    ORDER BY next_attempt_at, id LIMIT ?4
                )
                RETURNING \(UnlinkEventColumns.list)
                """,
                [.text(owner), .int(now), .int(leaseSeconds), .int(Int64(max(limit, 0)))]
            )
        }
        return try Self.events(rows).sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
    }

    public func renewLease(id: String, owner: String, now: Int64, leaseSeconds: Int64) async throws(StateStoreError) -> Bool {
        let rows = try await rows(
            """
            UPDATE kakao_bridge_unlink_events SET lease_expires_at = ?3 + ?4
            WHERE id = ?1 AND lease_owner = ?2 AND state = 'pending' RETURNING id
            """,
            [.text(id), .text(owner), .int(now), .int(leaseSeconds)]
        )
        return !rows.isEmpty
    }

    public func completeStep(id: String, step: UnlinkStep, owner: String, uid: String?) async throws(StateStoreError) -> Bool {
        let p = UnlinkEventColumns.prefix(step)
        // The uid is written only by the step that finds it, and only when that step was still pending.
        let uidUpdate = step == .firebase ? "uid = CASE WHEN \(p)_state = 'pending' THEN ?3 ELSE uid END," : ""
        let rows = try await rows(
            """
            UPDATE kakao_bridge_unlink_events SET \(uidUpdate)
                \(p)_attempts = \(p)_attempts + (CASE WHEN \(p)_state = 'pending' THEN 1 ELSE 0 END),
                \(p)_last_error = CASE WHEN \(p)_state = 'pending' THEN NULL ELSE \(p)_last_error END,
                \(p)_state = 'done'
            WHERE id = ?1 AND lease_owner = ?2 RETURNING id
            """,
            step == .firebase ? [.text(id), .text(owner), .optionalText(uid)] : [.text(id), .text(owner)]
        )
        return !rows.isEmpty
    }

    public func deferStep(id: String, step: UnlinkStep, owner: String, errorCode: String, nextAttemptAt: Int64) async throws(StateStoreError) -> Bool {
        let p = UnlinkEventColumns.prefix(step)
        let rows = try await rows(
            """
            UPDATE kakao_bridge_unlink_events SET
                \(p)_attempts = \(p)_attempts + (CASE WHEN \(p)_state = 'pending' THEN 1 ELSE 0 END),
                \(p)_last_error = CASE WHEN \(p)_state = 'pending' THEN ?3 ELSE \(p)_last_error END,
                \(p)_next_attempt_at = CASE WHEN \(p)_state = 'pending' THEN ?4 ELSE \(p)_next_attempt_at END,
                next_attempt_at = CASE WHEN \(p)_state = 'pending' THEN ?4 ELSE next_attempt_at END,
                lease_owner = NULL, lease_expires_at = 0
            WHERE id = ?1 AND lease_owner = ?2 RETURNING id
            """,
            [.text(id), .text(owner), .text(errorCode), .int(nextAttemptAt)]
        )
        return !rows.isEmpty
    }

    public func markFailed(id: String, errorCode: String) async throws(StateStoreError) {
        _ = try await rows(
            """
            UPDATE kakao_bridge_unlink_events SET state = 'failed', last_error = ?2, lease_owner = NULL, lease_expires_at = 0
            WHERE id = ?1 AND state = 'pending'
            """,
            [.text(id), .text(errorCode)]
        )
    }

    public func finish(id: String) async throws(StateStoreError) {
        _ = try await rows(
            """
            UPDATE kakao_bridge_unlink_events SET state = 'done', finished_at = ?2, lease_owner = NULL, lease_expires_at = 0
            WHERE id = ?1 AND state <> 'done'
            """,
            [.text(id), .int(clock.now())]
        )
    }

    public func event(id: String) async throws(StateStoreError) -> AccountEvent? {
        try Self.events(try await rows(
            "SELECT \(UnlinkEventColumns.list) FROM kakao_bridge_unlink_events WHERE id = ?", [.text(id)]
        )).first
    }

    public func events(state: AccountEventState) async throws(StateStoreError) -> [AccountEvent] {
        try Self.events(try await rows(
            "SELECT \(UnlinkEventColumns.list) FROM kakao_bridge_unlink_events WHERE state = ? ORDER BY received_at, id",
            [.text(state.rawValue)]
        ))
    }

    public func requeue(_ which: UnlinkRequeue, now: Int64, newDeadline: Int64) async throws(StateStoreError) -> Int {
        let update = """
            UPDATE kakao_bridge_unlink_events SET state = 'pending', deadline = ?2, next_attempt_at = ?1,
                lease_owner = NULL, lease_expires_at = 0,
                firebase_next_attempt_at = CASE WHEN firebase_state = 'pending' THEN ?1 ELSE firebase_next_attempt_at END,
                backend_next_attempt_at = CASE WHEN backend_state = 'pending' THEN ?1 ELSE backend_next_attempt_at END,
                provider_unlink_next_attempt_at =
                    CASE WHEN provider_unlink_state = 'pending' THEN ?1 ELSE provider_unlink_next_attempt_at END
            WHERE state = 'failed'
            """
        switch which {
        case .allFailed:
            return try await rows(update + " RETURNING id", [.int(now), .int(newDeadline)]).count
        case .ids(let ids):
            return try await transaction { () throws(StateStoreError) in
                var count = 0
                for id in Set(ids) {
                    count += try await unlockedRows(update + " AND id = ?3 RETURNING id", [.int(now), .int(newDeadline), .text(id)]).count
                }
                return count
            }
        }
    }

    public func queueCounts() async throws(StateStoreError) -> UnlinkQueueCounts {
        let rows = try await rows(
            """
            SELECT coalesce(sum(state = 'pending'), 0) AS pending, coalesce(sum(state = 'failed'), 0) AS failed
            FROM kakao_bridge_unlink_events
            """
        )
        guard let row = rows.first else { return UnlinkQueueCounts(pending: 0, failed: 0) }
        return UnlinkQueueCounts(pending: Int(try row.int64("pending")), failed: Int(try row.int64("failed")))
    }

    // MARK: Link locks

    public func acquireLinkLock(key: String, owner: String, leaseSeconds: Int64, now: Int64) async throws(StateStoreError) -> Bool {
        let rows = try await rows(
            """
            INSERT INTO kakao_bridge_link_locks (key, owner, expires_at) VALUES (?1, ?2, ?3 + ?4)
            ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
            WHERE kakao_bridge_link_locks.owner = excluded.owner OR kakao_bridge_link_locks.expires_at <= ?3
            RETURNING key
            """,
            [.text(key), .text(owner), .int(now), .int(leaseSeconds)]
        )
        return !rows.isEmpty
    }

    public func releaseLinkLock(key: String, owner: String) async throws(StateStoreError) {
        _ = try await rows("DELETE FROM kakao_bridge_link_locks WHERE key = ? AND owner = ?", [.text(key), .text(owner)])
    }

    // MARK: Users the service disabled

    public func setDisabledByService(kakaoID: Int64, _ disabled: Bool, at: Int64) async throws(StateStoreError) {
        if disabled {
            _ = try await rows(
                "INSERT INTO kakao_bridge_disabled_users (kakao_id, disabled_at) VALUES (?, ?) ON CONFLICT (kakao_id) DO NOTHING",
                [.int(kakaoID), .int(at)]
            )
        } else {
            _ = try await rows("DELETE FROM kakao_bridge_disabled_users WHERE kakao_id = ?", [.int(kakaoID)])
        }
    }

    public func isDisabledByService(kakaoID: Int64) async throws(StateStoreError) -> Bool {
        try await !rows("SELECT 1 AS one FROM kakao_bridge_disabled_users WHERE kakao_id = ?", [.int(kakaoID)]).isEmpty
    }

    // MARK: Sweeping

    public func deleteExpired(now: Int64) async throws(StateStoreError) -> Int {
        try await transaction { () throws(StateStoreError) in
            var deleted = 0
            deleted += try await unlockedRows("DELETE FROM kakao_bridge_nonces WHERE expires_at <= ? RETURNING 1", [.int(now)]).count
            deleted += try await unlockedRows(
                "DELETE FROM kakao_bridge_unlink_marks WHERE max(unlinked_at, changed_at) <= ? RETURNING 1", [.int(now - UnlinkMark.lifetimeSeconds)]
            ).count
            deleted += try await unlockedRows("DELETE FROM kakao_bridge_link_locks WHERE expires_at <= ? RETURNING 1", [.int(now)]).count
            deleted += try await unlockedRows(
                "DELETE FROM kakao_bridge_unlink_events WHERE state = 'done' AND finished_at <= ? RETURNING 1",
                [.int(now - StateStoreDefaults.doneEventLifetimeSeconds)]
            ).count
            return deleted
        }
    }

    // MARK: Statements

    /// One statement, on its own (SQLite wraps it in a transaction of its own).
    private func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws(StateStoreError) -> [SQLiteRow] {
        try await serial.run { () throws(StateStoreError) in try await unlockedRows(sql, binds) }
    }

    /// Only inside `serial.run`.
    private func unlockedRows(_ sql: String, _ binds: [SQLiteData] = []) async throws(StateStoreError) -> [SQLiteRow] {
        do {
            return try await connection.query(sql, binds)
        } catch {
            throw Self.storeError(error, doing: "query")
        }
    }

    /// `body` between `BEGIN IMMEDIATE` and `COMMIT`, with this connection to itself; rolled back when it throws.
    private func transaction<T>(_ body: () async throws(StateStoreError) -> T) async throws(StateStoreError) -> T {
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

    private static func events(_ rows: [SQLiteRow]) throws(StateStoreError) -> [AccountEvent] {
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
