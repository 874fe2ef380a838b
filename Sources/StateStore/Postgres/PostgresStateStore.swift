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
    let client: PostgresClient
    private let quotedSchema: String
    let schemaName: String
    let channel: String
    let logger: Logger
    let clock: UnixClock
    private let operationTimeout: Duration
    let notifier = MarkNotifier()
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

    // MARK: Statements

    func table(_ name: String) -> String { "\(quotedSchema).kakao_bridge_\(name)" }

    /// Makes sure the tables are ready, then runs `body`: both within one operation timeout.
    func perform<T: Sendable>(
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
    func withinTimeout<T: Sendable>(
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
