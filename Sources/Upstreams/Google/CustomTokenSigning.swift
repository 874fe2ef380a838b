/// Who signs a custom token (docs/custom-token.md#who-signs): the service account's key in this process
/// (`KeyFileSigner`, `firebase.signer: key_file`), or Google's IAM Credentials API as the account the service runs as
/// (`IAMSigner`, `firebase.signer: iam`). `CustomTokenMinter` builds the token around either.
public protocol CustomTokenSigning: Sendable {
    /// The account the token names as `iss` and `sub`; never logged.
    var accountEmail: String { get }
    /// The token's header, base64url-encoded once: with the key's `kid` for a key file, without one for IAM.
    var encodedHeader: String { get }
    /// The RS256 signature over `signingInput` (`header.payload`).
    /// - Throws: `iam_rejected` / `iam_unavailable` / `upstream_timeout` from IAM; `not_ready` when a key cannot sign.
    func signature(over signingInput: [UInt8], context: CallContext) async throws(Problem) -> [UInt8]
}
