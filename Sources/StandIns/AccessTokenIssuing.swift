/// A stand-in that hands out OAuth 2.0 access tokens: Google's token endpoint (a key file's grant) or the metadata server
/// (the runtime's account). The Admin API stand-in takes a token from either; the IAM stand-in only the metadata
/// server's, as the keyless signer uses no other.
public protocol AccessTokenIssuing: Sendable {
    /// Whether `token` was issued here and has not expired or been revoked.
    func isValid(_ token: String) -> Bool
}

extension GoogleTokenStandIn: AccessTokenIssuing {}
