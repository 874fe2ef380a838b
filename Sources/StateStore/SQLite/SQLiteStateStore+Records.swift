import BridgeSupport
import SQLiteNIO

/// The store's small records: used nonces, link locks, the users the service disabled, and the sweep of what expired.
extension SQLiteStateStore {
    // MARK: Nonces

    public func useNonce(id: [UInt8], expiresAt: Int64) async throws(StateStoreError) -> NonceUse {
        let inserted = try await rows(
            "INSERT INTO kakao_bridge_nonces (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING RETURNING id",
            [.blob(ByteBuffer(bytes: id)), .int(expiresAt)]
        )
        return inserted.isEmpty ? .replayed : .first
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
}
