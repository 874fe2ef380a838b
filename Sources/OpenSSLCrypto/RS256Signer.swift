import COpenSSL

/// RS256 signing with a key's prepared contexts (`PreparedContexts`).
final class RS256Signer: Sendable {
    private let key: PKey
    private let contexts: PreparedContexts

    init(key: PKey) {
        self.key = key
        self.contexts = PreparedContexts(key: key, operation: .sign)
    }

    /// RSASSA-PKCS1-v1_5 over SHA-256 of `message`.
    func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let digest = SHA256.hash(message)
        var signature = [UInt8](repeating: 0, count: key.maximumSignatureBytes)
        var length = signature.count
        try contexts.run("EVP_PKEY_sign") { context in
            signature.withUnsafeMutableBufferPointer { output in
                EVP_PKEY_sign(context, output.baseAddress, &length, digest, digest.count)
            }
        }
        signature.removeSubrange(length...)
        return signature
    }
}
