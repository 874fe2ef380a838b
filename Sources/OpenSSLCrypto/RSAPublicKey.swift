import COpenSSL

/// An RSA public key that verifies RS256 signatures.
public struct RSAPublicKey: Sendable {
    let key: PKey
    private let verifier: PreparedContexts

    /// Shared by every way of loading a key (PEM, certificate, JWK in `RSAPublicKey+JWK.swift`).
    init(key: PKey, call: String) throws(CryptoError) {
        guard key.isRSA else { throw CryptoError.notRSA(call: call) }
        self.key = key
        self.verifier = PreparedContexts(key: key, operation: .verify)
    }

    /// Loads a SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    public init(pem: String) throws(CryptoError) {
        let pointer = try MemoryBIO.reading(pem) { bio throws(CryptoError) in
            try OpenSSLCall.check("PEM_read_bio_PUBKEY", kb_ossl_read_pubkey(bio))
        }
        try self.init(key: PKey(owning: pointer), call: "PEM_read_bio_PUBKEY")
    }

    /// Takes the public key of an X.509 certificate PEM (`BEGIN CERTIFICATE`).
    /// Validity dates and issuer are not checked: Google's securetoken certificates are self-signed
    /// key carriers, trusted because they came from the configured URL.
    public init(certificatePEM: String) throws(CryptoError) {
        let pointer = try MemoryBIO.reading(certificatePEM) { bio throws(CryptoError) in
            let certificate = try OpenSSLCall.check("PEM_read_bio_X509", kb_ossl_read_x509(bio))
            defer { X509_free(certificate) }
            return try OpenSSLCall.check("X509_get_pubkey", X509_get_pubkey(certificate))
        }
        try self.init(key: PKey(owning: pointer), call: "X509_get_pubkey")
    }

    public var bits: Int { key.bits }

    /// SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`).
    public var pem: String { key.publicKeyPEM() }

    /// True only for a valid RSASSA-PKCS1-v1_5 SHA-256 signature of `message` by this key.
    public func verifyRS256(signature: [UInt8], message: [UInt8]) -> Bool {
        let digest = SHA256.hash(message)
        do {
            // A bad signature is an ordinary outcome; the funnel still drains OpenSSL's queue for it.
            try verifier.run("EVP_PKEY_verify") { context in
                EVP_PKEY_verify(context, signature, signature.count, digest, digest.count)
            }
            return true
        } catch {
            return false
        }
    }
}
