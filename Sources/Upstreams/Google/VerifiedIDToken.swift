import BridgeJSON

/// A Firebase ID token that passed every rule of the hook (docs/custom-token.md#id-token-rules).
public struct VerifiedIDToken: Sendable, Equatable {
    /// `sub`, the Firebase uid.
    public var subject: String
    /// The payload as sent.
    public var claims: JSONValue

    public init(subject: String, claims: JSONValue) {
        self.subject = subject
        self.claims = claims
    }
}
