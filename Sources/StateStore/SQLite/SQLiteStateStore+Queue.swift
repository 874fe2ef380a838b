import BridgeSupport
import SQLiteNIO

/// The queue of account events (unlinks, security events, deletions): enqueued once, claimed under a lease, each step
/// completed or deferred, finished or failed (docs/operations.md#shared-state).
extension SQLiteStateStore {
    // MARK: The account event queue

    public func enqueue(_ event: AccountEvent) async throws(StateStoreError) -> Bool {
        let inserted = try await rows(
            """
            INSERT INTO kakao_bridge_unlink_events (\(AccountEventColumns.list))
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
                RETURNING \(AccountEventColumns.list)
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

    public func completeStep(id: String, step: AccountStep, owner: String, uid: String?) async throws(StateStoreError) -> Bool {
        let p = AccountEventColumns.prefix(step)
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

    public func deferStep(id: String, step: AccountStep, owner: String, errorCode: String, nextAttemptAt: Int64) async throws(StateStoreError) -> Bool {
        let p = AccountEventColumns.prefix(step)
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
            "SELECT \(AccountEventColumns.list) FROM kakao_bridge_unlink_events WHERE id = ?", [.text(id)]
        )).first
    }

    public func events(state: AccountEventState) async throws(StateStoreError) -> [AccountEvent] {
        try Self.events(try await rows(
            "SELECT \(AccountEventColumns.list) FROM kakao_bridge_unlink_events WHERE state = ? ORDER BY received_at, id",
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

    public func queueCounts() async throws(StateStoreError) -> AccountEventCounts {
        let rows = try await rows(
            """
            SELECT coalesce(sum(state = 'pending'), 0) AS pending, coalesce(sum(state = 'failed'), 0) AS failed
            FROM kakao_bridge_unlink_events
            """
        )
        guard let row = rows.first else { return AccountEventCounts(pending: 0, failed: 0) }
        return AccountEventCounts(pending: Int(try row.int64("pending")), failed: Int(try row.int64("failed")))
    }
}
