import OpenSSLCrypto

/// `firebase.signer: key_file`: RS256 with the key file's private key, in this process (docs/custom-token.md). The
/// minter calls `sign` directly, without a suspension: a login's CPU is measured, and this path is most of it
/// (docs/benchmarks.md).
public struct KeyFileSigner: CustomTokenSigning {
    public let account: ServiceAccount
    public let encodedHeader: String

    public init(account: ServiceAccount) {
        self.account = account
        self.encodedHeader = JWTEncoding.encodedRS256Header(kid: account.privateKeyID)
    }

    public var accountEmail: String { account.clientEmail }

    /// The signature, here and now.
    public func sign(_ signingInput: [UInt8]) throws(CryptoError) -> [UInt8] {
        try account.privateKey.signRS256(signingInput)
    }

    public func signature(over signingInput: [UInt8], context: CallContext) async throws(Problem) -> [UInt8] {
        do {
            return try sign(signingInput)
        } catch {
            // Only a broken key gets here; the service cannot go on honestly.
            throw Problem.notReady("The custom token could not be signed.")
        }
    }
}
