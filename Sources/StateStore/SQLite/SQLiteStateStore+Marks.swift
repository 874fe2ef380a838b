import BridgeSupport
import SQLiteNIO

/// The unlink and change marks every instance follows (`UnlinkMarkFollower`), kept for `UnlinkMark.lifetimeSeconds`.
extension SQLiteStateStore {
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
    func recordMark(kakaoID: Int64, at: Int64, _ statement: String) async throws(StateStoreError) {
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
}
