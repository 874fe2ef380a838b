/// Verifies a Firebase ID token the way the Firebase Admin SDKs do (contract §2, `POST /v1/login-complete`).
public protocol IDTokenVerifying: Sendable {
    func verify(_ idToken: String, context: CallContext) async throws(Problem) -> VerifiedIDToken
    /// Readiness: the hook is ready once the certificates were fetched at least once.
    var isReady: Bool { get }
}

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
