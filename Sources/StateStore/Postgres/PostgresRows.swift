import PostgresNIO

/// Reading our rows back; a column of the wrong type means someone else changed the tables.
extension PostgresRandomAccessRow {
    func value<T: PostgresDecodable>(_ name: String, as type: T.Type = T.self) throws(StateStoreError) -> T {
        do {
            return try self[name].decode(T.self)
        } catch {
            throw StateStoreError(.incompatibleSchema, "column \(name) could not be read as \(T.self)")
        }
    }

    func unlinkEvent() throws(StateStoreError) -> AccountEvent {
        func step(_ step: AccountStep) throws(StateStoreError) -> AccountStepProgress {
            let p = step.rawValue
            guard let state = AccountStepState(rawValue: try value("\(p)_state", as: String.self)) else {
                throw StateStoreError(.incompatibleSchema, "unknown \(p)_state")
            }
            return AccountStepProgress(
                state: state, attempts: Int(try value("\(p)_attempts", as: Int32.self)),
                nextAttemptAt: try value("\(p)_next_attempt_at"), lastErrorCode: try value("\(p)_last_error", as: String?.self)
            )
        }
        guard let state = AccountEventState(rawValue: try value("state", as: String.self)) else {
            throw StateStoreError(.incompatibleSchema, "unknown event state")
        }
        guard let kind = AccountEventKind(rawValue: try value("kind", as: String.self)) else {
            throw StateStoreError(.incompatibleSchema, "unknown event kind")
        }
        return AccountEvent(
            id: try value("id"), kakaoID: try value("kakao_id"), reason: try value("reason"),
            receivedAt: try value("received_at"), deadline: try value("deadline"), state: state,
            firebase: try step(.firebase), backend: try step(.backend), uid: try value("uid", as: String?.self),
            nextAttemptAt: try value("next_attempt_at"), lastErrorCode: try value("last_error", as: String?.self),
            leaseOwner: try value("lease_owner", as: String?.self), leaseExpiresAt: try value("lease_expires_at"),
            eventType: try value("event_type", as: String?.self), provider: try value("provider", as: String?.self),
            providerID: try value("provider_id", as: String?.self),
            kind: kind, providerUnlink: try step(.providerUnlink), linkRecord: try value("link_record", as: String?.self)
        )
    }
}

extension PostgresRowSequence {
    /// Every row, for random access by column name.
    @discardableResult
    func randomAccessRows() async throws -> [PostgresRandomAccessRow] {
        var rows: [PostgresRandomAccessRow] = []
        for try await row in self { rows.append(row.makeRandomAccess()) }
        return rows
    }
}
