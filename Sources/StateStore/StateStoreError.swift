/// Why the state store could not do what was asked. It carries no secret: no password, no nonce, no row's content;
/// `detail` is the store's own reason (a SQL state and message, a SQLite result code) for the log and check-config.
public struct StateStoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The store cannot be reached or is busy now; the same call may succeed later (answer 503 `state_unavailable`).
        case unavailable
        /// The store answered and refused: permissions, a broken schema, a statement it does not accept. Retrying
        /// will not help until an operator acts.
        case rejected
        /// The tables were written by a newer kakao-bridge whose rows this one cannot read safely.
        case incompatibleSchema
    }

    public let kind: Kind
    public let detail: String

    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String {
        switch kind {
        case .unavailable: "state store unavailable: \(detail)"
        case .rejected: "state store refused: \(detail)"
        case .incompatibleSchema: "state store schema not understood: \(detail)"
        }
    }
}
