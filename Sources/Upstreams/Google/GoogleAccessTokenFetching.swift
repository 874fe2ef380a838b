/// An OAuth 2.0 access token for the Admin API, as Google's token endpoint hands it out. Never logged, never in a label.
public struct GoogleAccessToken: Sendable, Equatable {
    public var token: String
    /// Seconds from the answer on; Google gives 3599 or 3600.
    public var expiresIn: Int64

    public init(token: String, expiresIn: Int64) {
        self.token = token
        self.expiresIn = expiresIn
    }
}

/// Obtains an access token for a service account (docs/api.md#credentials): the real one sends the RFC 7523 JWT-bearer
/// grant to the account's `token_uri`; tests pass in-memory fakes. `AccessTokenCache` sits in front of it.
public protocol GoogleAccessTokenFetching: Sendable {
    func fetchAccessToken(for account: ServiceAccount, context: CallContext) async throws(Problem) -> GoogleAccessToken
}
