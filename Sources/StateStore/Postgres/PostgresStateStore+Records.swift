import BridgeSupport
import Logging
import PostgresNIO

/// The store's small records: used nonces, link locks, the users the service disabled, and the sweep of what expired.
extension PostgresStateStore {
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
}
