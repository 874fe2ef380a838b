/// Steps 4–5: what Identity Toolkit returns for a custom token, as the service reports it (`expires_in` an integer).
public struct FirebaseSession: Sendable, Equatable, Codable {
    public var idToken: String
    public var refreshToken: String
    public var expiresIn: Int
    public var isNewUser: Bool

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
        case refreshToken = "refresh_token"
        case expiresIn = "expires_in"
        case isNewUser = "is_new_user"
    }
}

/// Exchanges a custom token for an ID token (`accounts:signInWithCustomToken`).
public protocol IdentityToolkitExchanging: Sendable {
    func signIn(customToken: String, context: CallContext) async throws(Problem) -> FirebaseSession
}
