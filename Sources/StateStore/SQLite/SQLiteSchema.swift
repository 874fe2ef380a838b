/// The tables of a SQLite store, all named `kakao_bridge_*` so that they can share a file with others (docs/operations.md#shared-state).
/// Each migration runs once, in order, inside the transaction that records its number in `kakao_bridge_schema`;
/// a published migration is never edited, only followed by a new one.
enum SQLiteSchema {
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE kakao_bridge_nonces (
                id BLOB PRIMARY KEY,
                expires_at INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
            "CREATE INDEX kakao_bridge_nonces_expiry ON kakao_bridge_nonces (expires_at)",
            """
            CREATE TABLE kakao_bridge_unlink_marks (
                kakao_id INTEGER PRIMARY KEY,
                unlinked_at INTEGER NOT NULL,
                seq INTEGER NOT NULL
            )
            """,
            "CREATE INDEX kakao_bridge_unlink_marks_seq ON kakao_bridge_unlink_marks (seq)",
            // The marks' sequence lives apart from the rows: deleting the newest mark must never hand out its number
            // again, or a follower whose cursor is past it would miss the next one.
            "CREATE TABLE kakao_bridge_unlink_mark_seq (value INTEGER NOT NULL)",
            "INSERT INTO kakao_bridge_unlink_mark_seq (value) VALUES (0)",
            """
            CREATE TABLE kakao_bridge_unlink_events (
                id TEXT PRIMARY KEY,
                kakao_id INTEGER NOT NULL,
                reason TEXT NOT NULL,
                received_at INTEGER NOT NULL,
                deadline INTEGER NOT NULL,
                state TEXT NOT NULL,
                next_attempt_at INTEGER NOT NULL,
                last_error TEXT,
                uid TEXT,
                lease_owner TEXT,
                lease_expires_at INTEGER NOT NULL DEFAULT 0,
                finished_at INTEGER,
                firebase_state TEXT NOT NULL,
                firebase_attempts INTEGER NOT NULL DEFAULT 0,
                firebase_next_attempt_at INTEGER NOT NULL,
                firebase_last_error TEXT,
                backend_state TEXT NOT NULL,
                backend_attempts INTEGER NOT NULL DEFAULT 0,
                backend_next_attempt_at INTEGER NOT NULL,
                backend_last_error TEXT
            )
            """,
            "CREATE INDEX kakao_bridge_unlink_events_due ON kakao_bridge_unlink_events (state, next_attempt_at)",
            """
            CREATE TABLE kakao_bridge_link_locks (
                key TEXT PRIMARY KEY,
                owner TEXT NOT NULL,
                expires_at INTEGER NOT NULL
            ) WITHOUT ROWID
            """,
        ]),
        // Kakao's security events (docs/api.md#kakaos-security-events): marks that only drop caches, the event type of a queued event, and
        // the users the service disabled.
        (2, [
            "ALTER TABLE kakao_bridge_unlink_marks ADD COLUMN changed_at INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN event_type TEXT",
            """
            CREATE TABLE kakao_bridge_disabled_users (
                kakao_id INTEGER PRIMARY KEY,
                disabled_at INTEGER NOT NULL
            )
            """,
        ]),
        // Naver's unlink callback (docs/api.md#navers-unlink-callback) queues its steps here too: which provider's person
        // an event is about (NULL: Kakao's, as every earlier row).
        (3, [
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN provider TEXT",
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN provider_id TEXT",
        ]),
        // Account deletions (docs/api.md#deleting-an-account) are queued events too: their kind, the link record deleted
        // with a linked account, and their third step, the unlink at the provider.
        (4, [
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN kind TEXT NOT NULL DEFAULT 'account_event'",
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN link_record TEXT",
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN provider_unlink_state TEXT NOT NULL DEFAULT 'skipped'",
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN provider_unlink_attempts INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN provider_unlink_next_attempt_at INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE kakao_bridge_unlink_events ADD COLUMN provider_unlink_last_error TEXT",
        ]),
    ]

    static var latestVersion: Int { migrations.last?.version ?? 0 }
}
