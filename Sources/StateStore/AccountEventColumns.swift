/// The account event table's columns in the order both SQL stores select them (`SELECT \(list)`, `RETURNING \(list)`).
enum AccountEventColumns {
    static let list = """
        id, kakao_id, reason, received_at, deadline, state, next_attempt_at, last_error, uid, lease_owner, \
        lease_expires_at, firebase_state, firebase_attempts, firebase_next_attempt_at, firebase_last_error, \
        backend_state, backend_attempts, backend_next_attempt_at, backend_last_error, event_type, provider, provider_id, \
        kind, link_record, provider_unlink_state, provider_unlink_attempts, provider_unlink_next_attempt_at, \
        provider_unlink_last_error
        """

    /// The columns of one step; the step names are ours, never a caller's text.
    static func prefix(_ step: AccountStep) -> String { step.rawValue }
}
