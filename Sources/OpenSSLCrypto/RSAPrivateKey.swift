import COpenSSL

/// An RSA private key (at least 2048 bits) that signs RS256.
public struct RSAPrivateKey: Sendable {
    /// Keys below this size are refused: NIST and Google both require 2048-bit RSA for signatures.
    public static let minimumBits = 2048

    let key: PKey
    /// Derived once at load so handing out the public half never fails.
    public let publicKey: RSAPublicKey
    private let signer: RS256Signer

    private init(key: PKey, call: String) throws(CryptoError) {
        guard key.isRSA else { throw CryptoError.notRSA(call: call) }
        let bits = key.bits
        guard bits >= Self.minimumBits else {
            throw CryptoError.keyTooSmall(call: call, bits: bits, minimum: Self.minimumBits)
        }
        self.key = key
        self.publicKey = try RSAPublicKey(pem: key.publicKeyPEM())
        self.signer = RS256Signer(key: key)
    }

    /// Loads a PKCS#8 (`BEGIN PRIVATE KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`) PEM.
    /// Encrypted keys are refused rather than prompting for a password.
    public init(pem: String) throws(CryptoError) {
        let pointer = try MemoryBIO.reading(pem) { bio throws(CryptoError) in
            try OpenSSLCall.check("PEM_read_bio_PrivateKey", kb_ossl_read_private_key(bio))
        }
        try self.init(key: PKey(owning: pointer), call: "PEM_read_bio_PrivateKey")
    }

    public static func generate(bits: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        guard bits >= minimumBits else {
            throw CryptoError.keyTooSmall(call: "EVP_PKEY_CTX_set_rsa_keygen_bits", bits: bits, minimum: minimumBits)
        }
        guard bits <= 16384 else {
            throw CryptoError.invalidInput(call: "EVP_PKEY_CTX_set_rsa_keygen_bits", reason: "\(bits) bits is too large")
        }
        let context = try OpenSSLCall.check("EVP_PKEY_CTX_new_id", EVP_PKEY_CTX_new_id(kb_ossl_pkey_rsa(), nil))
        defer { EVP_PKEY_CTX_free(context) }
        try OpenSSLCall.check("EVP_PKEY_keygen_init", EVP_PKEY_keygen_init(context))
        try OpenSSLCall.check("EVP_PKEY_CTX_set_rsa_keygen_bits", EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)))
        var generated: OpaquePointer? = nil
        try OpenSSLCall.check("EVP_PKEY_generate", EVP_PKEY_generate(context, &generated))
        let pointer = try OpenSSLCall.check("EVP_PKEY_generate", generated)
        return try RSAPrivateKey(key: PKey(owning: pointer), call: "EVP_PKEY_generate")
    }

    public var bits: Int { key.bits }

    /// Unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    public var pkcs8PEM: String {
        MemoryBIO.writing(secret: true) { bio in
            OpenSSLCall.expect(
                "PEM_write_bio_PKCS8PrivateKey",
                PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil)
            )
        }
    }

    /// RSASSA-PKCS1-v1_5 over SHA-256 (JWS `RS256`); deterministic for a given key and message.
    public func signRS256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try signer.sign(message)
    }
}
