import SQLiteNIO

/// Reading our rows back: a column that is missing or of the wrong type means the file was changed by someone else.
extension SQLiteRow {
    func int64(_ name: String) throws(StateStoreError) -> Int64 {
        guard let value = column(name)?.integer else {
            throw StateStoreError(.incompatibleSchema, "column \(name) is missing or not an integer")
        }
        return Int64(value)
    }

    func text(_ name: String) throws(StateStoreError) -> String {
        guard let value = column(name)?.string, column(name).map({ !$0.isNull }) == true else {
            throw StateStoreError(.incompatibleSchema, "column \(name) is missing or not text")
        }
        return value
    }

    func optionalText(_ name: String) -> String? {
        guard let data = column(name), !data.isNull else { return nil }
        return data.string
    }

    func unlinkEvent() throws(StateStoreError) -> AccountEvent {
        func step(_ step: AccountStep) throws(StateStoreError) -> AccountStepProgress {
            let p = step.rawValue
            guard let state = AccountStepState(rawValue: try text("\(p)_state")) else {
                throw StateStoreError(.incompatibleSchema, "unknown \(p)_state")
            }
            return AccountStepProgress(
                state: state, attempts: Int(try int64("\(p)_attempts")),
                nextAttemptAt: try int64("\(p)_next_attempt_at"), lastErrorCode: optionalText("\(p)_last_error")
            )
        }
        guard let state = AccountEventState(rawValue: try text("state")) else {
            throw StateStoreError(.incompatibleSchema, "unknown event state")
        }
        guard let kind = AccountEventKind(rawValue: try text("kind")) else {
            throw StateStoreError(.incompatibleSchema, "unknown event kind")
        }
        return AccountEvent(
            id: try text("id"), kakaoID: try int64("kakao_id"), reason: try text("reason"),
            receivedAt: try int64("received_at"), deadline: try int64("deadline"), state: state,
            firebase: try step(.firebase), backend: try step(.backend), uid: optionalText("uid"),
            nextAttemptAt: try int64("next_attempt_at"), lastErrorCode: optionalText("last_error"),
            leaseOwner: optionalText("lease_owner"), leaseExpiresAt: try int64("lease_expires_at"),
            eventType: optionalText("event_type"), provider: optionalText("provider"), providerID: optionalText("provider_id"),
            kind: kind, providerUnlink: try step(.providerUnlink), linkRecord: optionalText("link_record")
        )
    }
}

extension SQLiteData {
    static func int(_ value: Int64) -> SQLiteData { .integer(SQLiteInt64(value)) }
    static func optionalText(_ value: String?) -> SQLiteData { value.map { .text($0) } ?? .null }
}
