/// Steps 4–5: what Identity Toolkit returns for a custom token, as the service reports it (`expires_in` an integer).
public struct FirebaseSession: Sendable, Equatable {
    public var idToken: String
    public var refreshToken: String
    public var expiresIn: Int
    public var isNewUser: Bool

    public init(idToken: String, refreshToken: String, expiresIn: Int, isNewUser: Bool) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.isNewUser = isNewUser
    }
}

/// Exchanges a custom token for an ID token (`accounts:signInWithCustomToken`).
public protocol IdentityToolkitExchanging: Sendable {
    func signIn(customToken: String, context: CallContext) async throws(Problem) -> FirebaseSession
}
