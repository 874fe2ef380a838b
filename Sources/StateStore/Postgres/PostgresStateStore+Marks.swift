import BridgeSupport
import Logging
import PostgresNIO

/// The unlink and change marks every instance follows (`UnlinkMarkFollower`), kept for `UnlinkMark.lifetimeSeconds`.
extension PostgresStateStore {
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
    func recordMark(
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
}
