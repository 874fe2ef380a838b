import BridgeSupport
import Logging
import PostgresNIO

/// The queue of account events (unlinks, security events, deletions): enqueued once, claimed under a lease, each step
/// completed or deferred, finished or failed (docs/operations.md#shared-state).
extension PostgresStateStore {
    // MARK: The account event queue

    public func enqueue(_ event: AccountEvent) async throws(StateStoreError) -> Bool {
        try await perform("enqueue") { client in
            let e = event
            return try await !client.query(
                """
                INSERT INTO \(unescaped: self.table("unlink_events")) (\(unescaped: AccountEventColumns.list))
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
                RETURNING \(unescaped: AccountEventColumns.list)
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

    public func completeStep(id: String, step: AccountStep, owner: String, uid: String?) async throws(StateStoreError) -> Bool {
        let p = AccountEventColumns.prefix(step)
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

    public func deferStep(id: String, step: AccountStep, owner: String, errorCode: String, nextAttemptAt: Int64) async throws(StateStoreError) -> Bool {
        let p = AccountEventColumns.prefix(step)
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
                "SELECT \(unescaped: AccountEventColumns.list) FROM \(unescaped: self.table("unlink_events")) WHERE id = \(id)",
                logger: self.logger
            ).randomAccessRows().map { row throws(StateStoreError) in try row.unlinkEvent() }.first
        }
    }

    public func events(state: AccountEventState) async throws(StateStoreError) -> [AccountEvent] {
        try await perform("events") { client in
            try await client.query(
                """
                SELECT \(unescaped: AccountEventColumns.list) FROM \(unescaped: self.table("unlink_events"))
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

    public func queueCounts() async throws(StateStoreError) -> AccountEventCounts {
        try await perform("queue counts") { client in
            let row = try await client.query(
                """
                SELECT count(*) FILTER (WHERE state = 'pending') AS pending, count(*) FILTER (WHERE state = 'failed') AS failed
                FROM \(unescaped: self.table("unlink_events"))
                """,
                logger: self.logger
            ).randomAccessRows().first
            guard let row else { return AccountEventCounts(pending: 0, failed: 0) }
            return AccountEventCounts(pending: Int(try row.value("pending", as: Int64.self)), failed: Int(try row.value("failed", as: Int64.self)))
        }
    }
}
