/// The tables of a PostgreSQL store, in a schema of their own (`kakao_bridge` unless told otherwise, docs/operations.md#shared-state),
/// with the same names and meaning as SQLite's. Each migration runs once, in order, inside the transaction that records
/// its number in `kakao_bridge_schema`; a published migration is never edited, only followed by a new one.
enum PostgresSchema {
    /// `S` stands for the quoted schema name.
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            "CREATE TABLE S.kakao_bridge_nonces (id BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL)",
            "CREATE INDEX kakao_bridge_nonces_expiry ON S.kakao_bridge_nonces (expires_at)",
            // Numbers handed out in commit order (setUnlinkMark holds an advisory lock), so that a follower reading
            // "after its cursor" never skips a mark committed late.
            "CREATE SEQUENCE S.kakao_bridge_unlink_mark_seq",
            """
            CREATE TABLE S.kakao_bridge_unlink_marks (
                kakao_id BIGINT PRIMARY KEY,
                unlinked_at BIGINT NOT NULL,
                seq BIGINT NOT NULL
            )
            """,
            "CREATE INDEX kakao_bridge_unlink_marks_seq ON S.kakao_bridge_unlink_marks (seq)",
            """
            CREATE TABLE S.kakao_bridge_unlink_events (
                id TEXT PRIMARY KEY,
                kakao_id BIGINT NOT NULL,
                reason TEXT NOT NULL,
                received_at BIGINT NOT NULL,
                deadline BIGINT NOT NULL,
                state TEXT NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                last_error TEXT,
                uid TEXT,
                lease_owner TEXT,
                lease_expires_at BIGINT NOT NULL DEFAULT 0,
                finished_at BIGINT,
                firebase_state TEXT NOT NULL,
                firebase_attempts INTEGER NOT NULL DEFAULT 0,
                firebase_next_attempt_at BIGINT NOT NULL,
                firebase_last_error TEXT,
                backend_state TEXT NOT NULL,
                backend_attempts INTEGER NOT NULL DEFAULT 0,
                backend_next_attempt_at BIGINT NOT NULL,
                backend_last_error TEXT
            )
            """,
            "CREATE INDEX kakao_bridge_unlink_events_due ON S.kakao_bridge_unlink_events (state, next_attempt_at)",
            "CREATE TABLE S.kakao_bridge_link_locks (key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at BIGINT NOT NULL)",
        ]),
        // Kakao's security events (docs/api.md#kakaos-security-events): marks that only drop caches, the event type of a queued event, and
        // the users the service disabled.
        (2, [
            "ALTER TABLE S.kakao_bridge_unlink_marks ADD COLUMN changed_at BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN event_type TEXT",
            "CREATE TABLE S.kakao_bridge_disabled_users (kakao_id BIGINT PRIMARY KEY, disabled_at BIGINT NOT NULL)",
        ]),
        // Naver's unlink callback (docs/api.md#navers-unlink-callback): which provider's person an event is about.
        (3, [
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN provider TEXT",
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN provider_id TEXT",
        ]),
        // Account deletions (docs/api.md#deleting-an-account): their kind, the link record, the unlink at the provider.
        (4, [
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN kind TEXT NOT NULL DEFAULT 'account_event'",
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN link_record TEXT",
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN provider_unlink_state TEXT NOT NULL DEFAULT 'skipped'",
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN provider_unlink_attempts INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN provider_unlink_next_attempt_at BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE S.kakao_bridge_unlink_events ADD COLUMN provider_unlink_last_error TEXT",
        ]),
    ]

    static var latestVersion: Int { migrations.last?.version ?? 0 }

    static func statements(for migration: [String], schema quoted: String) -> [String] {
        migration.map { $0.replacing("S.", with: "\(quoted).") }
    }

    /// Only names we choose: lower-case letters, digits and `_`, not starting with a digit.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first), name.utf8.count <= 48 else {
            return false
        }
        return name.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") }
    }
}
