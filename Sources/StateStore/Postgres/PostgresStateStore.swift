import BridgeSupport
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// PostgreSQL (`state.url` = `postgres://...`, docs/operations.md#shared-state): shared by every instance of a fleet. The connection pool
/// and the `LISTEN` for unlink marks live in `run()`, which the app runs under its ServiceGroup; until it runs, or
/// while the server cannot be reached, every operation fails as `.unavailable` after `operationTimeout`, so the
/// service starts and keeps trying. The tables are created or moved forward by the first operation that finds them
/// not yet migrated.
public final class PostgresStateStore: StateStore {
    private let client: PostgresClient
    private let quotedSchema: String
    private let schemaName: String
    private let channel: String
    private let logger: Logger
    private let clock: UnixClock
    private let operationTimeout: Duration
    private let notifier = MarkNotifier()
    private let migrated = Mutex(false)

    /// `schema` is the PostgreSQL schema holding the tables (the tests give each test its own).
    package init(
        location: StateStoreURL.PostgresLocation, password: String?, logger: Logger, clock: UnixClock = .system,
        schema: String = "kakao_bridge", operationTimeout: Duration = .seconds(5), maximumConnections: Int = 8
    ) throws(StateStoreError) {
        guard PostgresSchema.isValidName(schema) else {
            throw StateStoreError(.rejected, "invalid schema name")
        }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: password,
            database: location.database, tls: Self.tls(location.sslMode)
        )
        configuration.options.connectTimeout = operationTimeout
        configuration.options.maximumConnections = max(maximumConnections, 2)
        configuration.options.minimumConnections = 0
        configuration.options.additionalStartupParameters = Self.sessionSettings(operationTimeout: operationTimeout)
        // An idle pooled connection to a server that went away is found out within seconds, not at its next use.
        configuration.options.keepAliveBehavior = .init(frequency: .seconds(10))
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.schemaName = schema
        self.quotedSchema = "\"\(schema)\""
        self.channel = "\(schema)_unlink"
        self.logger = logger
        self.clock = clock
        self.operationTimeout = operationTimeout
    }

    /// Set on every connection at start (docs/operations.md#shared-state). The server ends a statement that runs, or
    /// waits on a lock, past the operation's limit, so a held table lock frees the connection instead of keeping it
    /// until the lock goes; and its TCP keepalive drops a connection whose client vanished. (The client side gives up at
    /// the limit by itself, `withinTimeout`, whatever the server does: a stopped server answers nothing.)
    static func sessionSettings(operationTimeout: Duration) -> [(String, String)] {
        let milliseconds = max(1, Int(operationTimeout.milliseconds))
        return [
            ("statement_timeout", String(milliseconds)),
            ("lock_timeout", String(milliseconds)),
            ("idle_in_transaction_session_timeout", String(milliseconds * 2)),
            ("tcp_keepalives_idle", "10"),
            ("tcp_keepalives_interval", "5"),
            ("tcp_keepalives_count", "3"),
        ]
    }

    private static func tls(_ mode: StateStoreURL.SSLMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable:
            return .disable
        case .require:
            // As libpq's `require`: encrypted, the certificate not checked.
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .require(tls)
        case .verifyFull:
            return .require(.makeClientConfiguration())
        }
    }

    // MARK: Running

    /// The pool and the listener, until graceful shutdown or cancellation.
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            group.addTask { await cancelWhenGracefulShutdown { await self.listen() } }
            _ = await group.next()
            group.cancelAll()
        }
        notifier.finish()
    }

    /// `LISTEN` on a connection of the pool; reconnects after a second when it drops. Each (re)connection wakes the
    /// readers once, since a mark may have been recorded while nobody listened.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: self.channel) { notifications in
                        self.notifier.notify()
                        for try await _ in notifications { self.notifier.notify() }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.debug("state store listener lost", metadata: ["error": "\(Self.storeError(error, doing: "listen"))"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    public func close() async {
        notifier.finish()
    }

    // MARK: Schema

    public func ping() async throws(StateStoreError) {
        let version: Int32? = try await perform("ping") { client in
            try await client.query("SELECT max(version) AS version FROM \(unescaped: self.table("schema"))", logger: self.logger)
                .randomAccessRows().first?.value("version", as: Int32?.self) ?? nil
        }
        guard let version, Int(version) >= PostgresSchema.latestVersion else {
            throw StateStoreError(.rejected, "the tables are not ready")
        }
    }

    public func migrate() async throws(StateStoreError) {
        try await withinTimeout("migrate") { try await self.applyMigrations() }
        migrated.withLock { $0 = true }
    }

    private func applyMigrations() async throws {
        let schema = quotedSchema
        let lockName = "\(schemaName).kakao_bridge_schema"
        try await client.withTransaction(logger: logger) { connection in
            // Two instances starting together: the second waits here, then finds the work done.
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockName)))", logger: logger)
            let exists = try await connection.query(
                "SELECT 1 AS one FROM pg_namespace WHERE nspname = \(schemaName)", logger: logger
            ).randomAccessRows()
            if exists.isEmpty {
                try await connection.query("CREATE SCHEMA \(unescaped: schema)", logger: logger)
            }
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS \(unescaped: schema).kakao_bridge_schema (version INTEGER PRIMARY KEY)", logger: logger
            )
            let current = Int(try await connection.query(
                "SELECT coalesce(max(version), 0) AS version FROM \(unescaped: schema).kakao_bridge_schema", logger: logger
            ).randomAccessRows().first?.value("version", as: Int32.self) ?? 0)
            if current > PostgresSchema.latestVersion {
                // A newer kakao-bridge moved the tables forward; its migrations only add, so this one can go on.
                logger.notice("state store tables are newer than this build", metadata: ["version": "\(current)"])
                return
            }
            for migration in PostgresSchema.migrations where migration.version > current {
                for statement in PostgresSchema.statements(for: migration.statements, schema: schema) {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO \(unescaped: schema).kakao_bridge_schema (version) VALUES (\(Int32(migration.version)))",
                    logger: logger
                )
                logger.info("state store migrated", metadata: ["version": "\(migration.version)"])
            }
        }
    }

    // MARK: Nonces

    public func useNonce(id: [UInt8], expiresAt: Int64) async throws(StateStoreError) -> NonceUse {
        try await perform("nonce") { client in
            let rows = try await client.query(
                """
                INSERT INTO \(unescaped: self.table("nonces")) (id, expires_at) VALUES (\(ByteBuffer(bytes: id)), \(expiresAt))
                ON CONFLICT (id) DO NOTHING RETURNING 1 AS one
                """,
                logger: self.logger
            ).randomAccessRows()
            return rows.isEmpty ? .replayed : .first
        }
    }

    // MARK: Unlink marks

    public func setUnlinkMark(kakaoID: Int64, at: Int64) async throws(StateStoreError) {
        try await recordMark("record unlink") { connection in
            try await connection.query(
                """
                INSERT INTO \(unescaped: self.table("unlink_marks")) AS m (kakao_id, unlinked_at, seq)
                VALUES (\(kakaoID), \(at), nextval('\(unescaped: self.table("unlink_mark_seq"))'))
                ON CONFLICT (kakao_id) DO UPDATE
                SET unlinked_at = greatest(m.unlinked_at, excluded.unlinked_at), seq = excluded.seq
                """,
                logger: self.logger
            )
        }
    }

    public func recordChange(kakaoID: Int64, at: Int64) async throws(StateStoreError) {
        try await recordMark("record change") { connection in
            try await connection.query(
                """
                INSERT INTO \(unescaped: self.table("unlink_marks")) AS m (kakao_id, unlinked_at, changed_at, seq)
                VALUES (\(kakaoID), 0, \(at), nextval('\(unescaped: self.table("unlink_mark_seq"))'))
                ON CONFLICT (kakao_id) DO UPDATE
                SET changed_at = greatest(m.changed_at, excluded.changed_at), seq = excluded.seq
                """,
                logger: self.logger
            )
        }
    }

    /// One mark written by `write` under the marks' advisory lock, with NOTIFY at commit.
    private func recordMark(
        _ operation: String, _ write: @escaping @Sendable (PostgresConnection) async throws -> PostgresRowSequence
    ) async throws(StateStoreError) {
        try await perform(operation) { client in
            let lockName = "\(self.schemaName).kakao_bridge_unlink_marks"
            try await client.withTransaction(logger: self.logger) { connection in
                // Held to the commit, so sequence numbers become visible in the order they were taken.
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockName)))", logger: self.logger)
                _ = try await write(connection)
                // Delivered at commit to every instance's LISTEN.
                try await connection.query("SELECT pg_notify(\(self.channel), '')", logger: self.logger)
            }
        }
        notifier.notify()
    }

    public func unlinkMarks(after cursor: Int64) async throws(StateStoreError) -> UnlinkMarkPage {
        let rows: [(Int64, Int64, Int64, Int64)] = try await perform("unlink marks") { client in
            try await client.query(
                """
                SELECT kakao_id, unlinked_at, changed_at, seq FROM \(unescaped: self.table("unlink_marks"))
                WHERE seq > \(cursor) ORDER BY seq
                """,
                logger: self.logger
            ).randomAccessRows().map { row throws(StateStoreError) in
                (try row.value("kakao_id"), try row.value("unlinked_at"), try row.value("changed_at"), try row.value("seq"))
            }
        }
        return UnlinkMarkPage(marks: rows.map { UnlinkMark(kakaoID: $0.0, at: $0.1, changedAt: $0.2) }, cursor: rows.last?.3 ?? cursor)
    }

    public func markNotifications() -> AsyncStream<Void> { notifier.stream() }

    // MARK: The unlink queue

    public func enqueue(_ event: AccountEvent) async throws(StateStoreError) -> Bool {
        try await perform("enqueue") { client in
            let e = event
            return try await !client.query(
                """
                INSERT INTO \(unescaped: self.table("unlink_events")) (\(unescaped: UnlinkEventColumns.list))
                VALUES (\(e.id), \(e.kakaoID), \(e.reason), \(e.receivedAt), \(e.deadline), \(e.state.rawValue),
                    \(e.nextAttemptAt), \(e.lastErrorCode), \(e.uid), \(e.leaseOwner), \(e.leaseExpiresAt),
                    \(e.firebase.state.rawValue), \(Int32(e.firebase.attempts)), \(e.firebase.nextAttemptAt), \(e.firebase.lastErrorCode),
                    \(e.backend.state.rawValue), \(Int32(e.backend.attempts)), \(e.backend.nextAttemptAt), \(e.backend.lastErrorCode),
                    \(e.eventType), \(e.provider), \(e.providerID), \(e.kind.rawValue), \(e.linkRecord),
                    \(e.providerUnlink.state.rawValue), \(Int32(e.providerUnlink.attempts)), \(e.providerUnlink.nextAttemptAt),
                    \(e.providerUnlink.lastErrorCode))
                ON CONFLICT (id) DO NOTHING RETURNING 1 AS one
                """,
                logger: self.logger
            ).randomAccessRows().isEmpty
        }
    }

    public func claimDue(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws(StateStoreError) -> [AccountEvent] {
        let events = try await perform("claim") { client in
            let t = self.table("unlink_events")
            return try await client.query(
                """
                UPDATE \(unescaped: t) SET lease_owner = \(owner), lease_expires_at = \(now + leaseSeconds)
                WHERE id IN (
                    SELECT id FROM \(unescaped: t)
                    WHERE state = 'pending' AND next_attempt_at <= \(now) AND (lease_owner IS NULL OR lease_expires_at <= \(now))
                    ORDER BY next_attempt_at, id LIMIT \(Int64(max(limit, 0)))
                    FOR UPDATE SKIP LOCKED
                )
                RETURNING \(unescaped: UnlinkEventColumns.list)
                """,
                logger: self.logger
            ).randomAccessRows().map { row throws(StateStoreError) in try row.unlinkEvent() }
        }
        return events.sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }
    }

    public func renewLease(id: String, owner: String, now: Int64, leaseSeconds: Int64) async throws(StateStoreError) -> Bool {
        try await perform("renew lease") { client in
            try await !client.query(
                """
                UPDATE \(unescaped: self.table("unlink_events")) SET lease_expires_at = \(now + leaseSeconds)
                WHERE id = \(id) AND lease_owner = \(owner) AND state = 'pending' RETURNING 1 AS one
                """,
                logger: self.logger
            ).randomAccessRows().isEmpty
        }
    }

    public func completeStep(id: String, step: UnlinkStep, owner: String, uid: String?) async throws(StateStoreError) -> Bool {
        let p = UnlinkEventColumns.prefix(step)
        let findsUID = step == .firebase
        return try await perform("complete step") { client in
            // The uid is written only by the step that finds it, and only while that step was pending.
            try await !client.query(
                """
                UPDATE \(unescaped: self.table("unlink_events")) SET
                    uid = CASE WHEN \(findsUID) AND firebase_state = 'pending' THEN \(uid) ELSE uid END,
                    \(unescaped: p)_attempts = \(unescaped: p)_attempts + (CASE WHEN \(unescaped: p)_state = 'pending' THEN 1 ELSE 0 END),
                    \(unescaped: p)_last_error = CASE WHEN \(unescaped: p)_state = 'pending' THEN NULL ELSE \(unescaped: p)_last_error END,
                    \(unescaped: p)_state = 'done'
                WHERE id = \(id) AND lease_owner = \(owner) RETURNING 1 AS one
                """,
                logger: self.logger
            ).randomAccessRows().isEmpty
        }
    }

    public func deferStep(id: String, step: UnlinkStep, owner: String, errorCode: String, nextAttemptAt: Int64) async throws(StateStoreError) -> Bool {
        let p = UnlinkEventColumns.prefix(step)
        return try await perform("defer step") { client in
            try await !client.query(
                """
                UPDATE \(unescaped: self.table("unlink_events")) SET
                    \(unescaped: p)_attempts = \(unescaped: p)_attempts + (CASE WHEN \(unescaped: p)_state = 'pending' THEN 1 ELSE 0 END),
                    \(unescaped: p)_last_error = CASE WHEN \(unescaped: p)_state = 'pending' THEN \(errorCode) ELSE \(unescaped: p)_last_error END,
                    \(unescaped: p)_next_attempt_at = CASE WHEN \(unescaped: p)_state = 'pending' THEN \(nextAttemptAt) ELSE \(unescaped: p)_next_attempt_at END,
                    next_attempt_at = CASE WHEN \(unescaped: p)_state = 'pending' THEN \(nextAttemptAt) ELSE next_attempt_at END,
                    lease_owner = NULL, lease_expires_at = 0
                WHERE id = \(id) AND lease_owner = \(owner) RETURNING 1 AS one
                """,
                logger: self.logger
            ).randomAccessRows().isEmpty
        }
    }

    public func markFailed(id: String, errorCode: String) async throws(StateStoreError) {
        try await perform("mark failed") { client in
            try await client.query(
                """
                UPDATE \(unescaped: self.table("unlink_events"))
                SET state = 'failed', last_error = \(errorCode), lease_owner = NULL, lease_expires_at = 0
                WHERE id = \(id) AND state = 'pending'
                """,
                logger: self.logger
            ).randomAccessRows()
            return ()
        }
    }

    public func finish(id: String) async throws(StateStoreError) {
        let now = clock.now()
        try await perform("finish") { client in
            try await client.query(
                """
                UPDATE \(unescaped: self.table("unlink_events"))
                SET state = 'done', finished_at = \(now), lease_owner = NULL, lease_expires_at = 0
                WHERE id = \(id) AND state <> 'done'
                """,
                logger: self.logger
            ).randomAccessRows()
            return ()
        }
    }

    public func event(id: String) async throws(StateStoreError) -> AccountEvent? {
        try await perform("event") { client in
            try await client.query(
                "SELECT \(unescaped: UnlinkEventColumns.list) FROM \(unescaped: self.table("unlink_events")) WHERE id = \(id)",
                logger: self.logger
            ).randomAccessRows().map { row throws(StateStoreError) in try row.unlinkEvent() }.first
        }
    }

    public func events(state: AccountEventState) async throws(StateStoreError) -> [AccountEvent] {
        try await perform("events") { client in
            try await client.query(
                """
                SELECT \(unescaped: UnlinkEventColumns.list) FROM \(unescaped: self.table("unlink_events"))
                WHERE state = \(state.rawValue) ORDER BY received_at, id
                """,
                logger: self.logger
            ).randomAccessRows().map { row throws(StateStoreError) in try row.unlinkEvent() }
        }
    }

    public func requeue(_ which: UnlinkRequeue, now: Int64, newDeadline: Int64) async throws(StateStoreError) -> Int {
        let (all, ids): (Bool, [String]) = switch which {
        case .allFailed: (true, [])
        case .ids(let ids): (false, ids)
        }
        return try await perform("requeue") { client in
            try await client.query(
                """
                UPDATE \(unescaped: self.table("unlink_events")) SET state = 'pending', deadline = \(newDeadline),
                    next_attempt_at = \(now), lease_owner = NULL, lease_expires_at = 0,
                    firebase_next_attempt_at = CASE WHEN firebase_state = 'pending' THEN \(now) ELSE firebase_next_attempt_at END,
                    backend_next_attempt_at = CASE WHEN backend_state = 'pending' THEN \(now) ELSE backend_next_attempt_at END,
                    provider_unlink_next_attempt_at =
                        CASE WHEN provider_unlink_state = 'pending' THEN \(now) ELSE provider_unlink_next_attempt_at END
                WHERE state = 'failed' AND (\(all) OR id = ANY(\(ids)))
                RETURNING 1 AS one
                """,
                logger: self.logger
            ).randomAccessRows().count
        }
    }

    public func queueCounts() async throws(StateStoreError) -> UnlinkQueueCounts {
        try await perform("queue counts") { client in
            let row = try await client.query(
                """
                SELECT count(*) FILTER (WHERE state = 'pending') AS pending, count(*) FILTER (WHERE state = 'failed') AS failed
                FROM \(unescaped: self.table("unlink_events"))
                """,
                logger: self.logger
            ).randomAccessRows().first
            guard let row else { return UnlinkQueueCounts(pending: 0, failed: 0) }
            return UnlinkQueueCounts(pending: Int(try row.value("pending", as: Int64.self)), failed: Int(try row.value("failed", as: Int64.self)))
        }
    }

    // MARK: Link locks

    public func acquireLinkLock(key: String, owner: String, leaseSeconds: Int64, now: Int64) async throws(StateStoreError) -> Bool {
        try await perform("acquire link lock") { client in
            try await !client.query(
                """
                INSERT INTO \(unescaped: self.table("link_locks")) AS l (key, owner, expires_at)
                VALUES (\(key), \(owner), \(now + leaseSeconds))
                ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
                WHERE l.owner = excluded.owner OR l.expires_at <= \(now)
                RETURNING 1 AS one
                """,
                logger: self.logger
            ).randomAccessRows().isEmpty
        }
    }

    public func releaseLinkLock(key: String, owner: String) async throws(StateStoreError) {
        try await perform("release link lock") { client in
            try await client.query(
                "DELETE FROM \(unescaped: self.table("link_locks")) WHERE key = \(key) AND owner = \(owner)", logger: self.logger
            ).randomAccessRows()
            return ()
        }
    }

    // MARK: Users the service disabled

    public func setDisabledByService(kakaoID: Int64, _ disabled: Bool, at: Int64) async throws(StateStoreError) {
        try await perform("disabled by service") { client in
            let t = self.table("disabled_users")
            if disabled {
                try await client.query(
                    "INSERT INTO \(unescaped: t) (kakao_id, disabled_at) VALUES (\(kakaoID), \(at)) ON CONFLICT (kakao_id) DO NOTHING",
                    logger: self.logger
                )
            } else {
                try await client.query("DELETE FROM \(unescaped: t) WHERE kakao_id = \(kakaoID)", logger: self.logger)
            }
        }
    }

    public func isDisabledByService(kakaoID: Int64) async throws(StateStoreError) -> Bool {
        try await perform("disabled by service") { client in
            try await !client.query(
                "SELECT 1 AS one FROM \(unescaped: self.table("disabled_users")) WHERE kakao_id = \(kakaoID)", logger: self.logger
            ).randomAccessRows().isEmpty
        }
    }

    // MARK: Sweeping

    public func deleteExpired(now: Int64) async throws(StateStoreError) -> Int {
        try await perform("delete expired") { client in
            let row = try await client.query(
                """
                WITH n AS (DELETE FROM \(unescaped: self.table("nonces")) WHERE expires_at <= \(now) RETURNING 1),
                m AS (DELETE FROM \(unescaped: self.table("unlink_marks")) WHERE greatest(unlinked_at, changed_at) <= \(now - UnlinkMark.lifetimeSeconds) RETURNING 1),
                l AS (DELETE FROM \(unescaped: self.table("link_locks")) WHERE expires_at <= \(now) RETURNING 1),
                e AS (DELETE FROM \(unescaped: self.table("unlink_events"))
                      WHERE state = 'done' AND finished_at <= \(now - StateStoreDefaults.doneEventLifetimeSeconds) RETURNING 1)
                SELECT (SELECT count(*) FROM n) + (SELECT count(*) FROM m) + (SELECT count(*) FROM l) + (SELECT count(*) FROM e) AS deleted
                """,
                logger: self.logger
            ).randomAccessRows().first
            return Int(try row?.value("deleted", as: Int64.self) ?? 0)
        }
    }

    // MARK: Statements

    private func table(_ name: String) -> String { "\(quotedSchema).kakao_bridge_\(name)" }

    /// Makes sure the tables are ready, then runs `body`: both within one operation timeout.
    private func perform<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws(StateStoreError) -> T {
        try await withinTimeout(what) {
            if !self.migrated.withLock({ $0 }) {
                try await self.applyMigrations()
                self.migrated.withLock { $0 = true }
            }
            return try await body(self.client)
        }
    }

    /// Gives up at the operation timeout without waiting for the query (`withDeadline`): PostgresNIO's queries do not end
    /// on cancellation, and one waiting on a stopped server or a held lock would hold its caller as long as that lasts.
    private func withinTimeout<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws(StateStoreError) -> T {
        do {
            return try await withDeadline(operationTimeout, body)
        } catch is DeadlinePassed {
            throw StateStoreError(.unavailable, "\(what): no answer within \(operationTimeout)")
        } catch {
            throw Self.storeError(error, doing: what)
        }
    }

    /// Connection trouble, shutdown, overload and lock conflicts may pass; the rest needs an operator. Only the
    /// server's SQL state and message and the client's error code are kept: never a query's values or a password.
    static func storeError(_ error: any Error, doing what: String) -> StateStoreError {
        if let error = error as? StateStoreError { return error }
        if let error = error as? PostgresTransactionError,
           let inner = error.closureError ?? error.commitError ?? error.beginError {
            return storeError(inner, doing: what)
        }
        if let error = error as? PSQLError {
            if error.code == .server, let info = error.serverInfo {
                let state = info[.sqlState] ?? "?????"
                let message = info[.message] ?? ""
                let transient = ["08", "40", "53", "55", "57"].contains(String(state.prefix(2)))
                return StateStoreError(transient ? .unavailable : .rejected, "\(what): \(state) \(message)")
            }
            let underlying = error.underlying.map { ": \($0)" } ?? ""
            return StateStoreError(.unavailable, "\(what): \(error.code)\(underlying)")
        }
        if error is CancellationError {
            return StateStoreError(.unavailable, "\(what): cancelled")
        }
        return StateStoreError(.unavailable, "\(what): \(String(describing: type(of: error)))")
    }
}
