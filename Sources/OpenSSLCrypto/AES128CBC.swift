import COpenSSL

/// AES-128-CBC with PKCS#5 padding: how Naver encrypts the user id of its unlink callback
/// (docs/api.md#navers-unlink-callback). Decryption for the service; encryption for the stand-in that plays Naver.
public enum AES128CBC {
    public static let keyBytes = 16
    public static let blockBytes = 16

    /// The plaintext, or `nil` for a wrong key or IV size, a ciphertext that is not whole blocks, or bad padding.
    public static func decrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) -> [UInt8]? {
        guard key.count == keyBytes, iv.count == blockBytes, !ciphertext.isEmpty, ciphertext.count % blockBytes == 0 else {
            return nil
        }
        return try? run(encrypt: false, key: key, iv: iv, input: ciphertext)
    }

    public static func encrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) -> [UInt8]? {
        guard key.count == keyBytes, iv.count == blockBytes else { return nil }
        return try? run(encrypt: true, key: key, iv: iv, input: plaintext)
    }

    private static func run(encrypt: Bool, key: [UInt8], iv: [UInt8], input: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipher = try OpenSSLCall.check("EVP_CIPHER_fetch", EVP_CIPHER_fetch(nil, "AES-128-CBC", nil))
        defer { EVP_CIPHER_free(cipher) }
        let context = try OpenSSLCall.check("EVP_CIPHER_CTX_new", EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(context) }
        try OpenSSLCall.check("EVP_CipherInit_ex2", EVP_CipherInit_ex2(context, cipher, key, iv, encrypt ? 1 : 0, nil))
        var output = [UInt8](repeating: 0, count: input.count + blockBytes)
        var written: Int32 = 0
        var final: Int32 = 0
        try output.withUnsafeMutableBufferPointer { (out: inout UnsafeMutableBufferPointer<UInt8>) throws(CryptoError) in
            try OpenSSLCall.check("EVP_CipherUpdate", EVP_CipherUpdate(context, out.baseAddress, &written, input, Int32(input.count)))
            try OpenSSLCall.check("EVP_CipherFinal_ex", EVP_CipherFinal_ex(context, out.baseAddress! + Int(written), &final))
        }
        return Array(output.prefix(Int(written + final)))
    }
}
