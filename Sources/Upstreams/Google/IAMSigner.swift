/// `firebase.signer: iam`: the custom token signed by the IAM Credentials API as the account the service runs as, with an
/// access token from the metadata server (docs/api.md#keyless-signing-on-google-cloud). No `kid`: `signBlob` picks one of
/// the account's Google-managed keys, and Google tries each of them on a token that names none.
///
/// Each token is distinct (`iat`, `uid`), so nothing is cached: one `signBlob` call per login.
package struct IAMSigner: CustomTokenSigning {
    package let accountEmail: String
    package let encodedHeader = JWTEncoding.encodedRS256Header(kid: nil)
    /// Shared with the Admin API: one token for both (docs/api.md#credentials).
    private let credentials: AccessTokenCache
    private let iam: any BlobSigning

    package init(accountEmail: String, credentials: AccessTokenCache, iam: any BlobSigning) {
        self.accountEmail = accountEmail
        self.credentials = credentials
        self.iam = iam
    }

    package func signature(over signingInput: [UInt8], context: CallContext) async throws(Problem) -> [UInt8] {
        let bearer: String
        do {
            bearer = try await credentials.bearer(context: context)
        } catch {
            // A token that cannot be had for signing is signing's failure (docs/errors.md#keyless-signing).
            throw error.asSigningFailure()
        }
        return try await iam.signBlob(signingInput, account: accountEmail, bearer: bearer, context: context)
    }
}
