import COpenSSL

/// Owns one EVP_PKEY and frees it with the last reference.
///
/// `@unchecked Sendable` is sound because the key is never mutated after it is loaded or generated,
/// and OpenSSL 3 allows one EVP_PKEY to be used from many threads at once as long as each operation
/// brings its own context (`PreparedContexts` lends each signature and verification one of its own).
final class PKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of a key returned by OpenSSL with a reference for us.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    var isRSA: Bool { EVP_PKEY_get_base_id(pointer) == kb_ossl_pkey_rsa() }

    /// The longest signature this key makes (the modulus' bytes for RSA).
    var maximumSignatureBytes: Int { Int(EVP_PKEY_get_size(pointer)) }

    /// SubjectPublicKeyInfo PEM; holds no private material even when this is a private key.
    func publicKeyPEM() -> String {
        MemoryBIO.writing { bio in
            OpenSSLCall.expect("PEM_write_bio_PUBKEY", PEM_write_bio_PUBKEY(bio, pointer))
        }
    }
}

enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `text`; the bytes stay alive for the whole call.
    static func reading<R>(
        _ text: String,
        _ body: (OpaquePointer) throws(CryptoError) -> R
    ) throws(CryptoError) -> R {
        let count = text.utf8.count
        guard count < Int(Int32.max) else {
            throw CryptoError.invalidInput(call: "BIO_new_mem_buf", reason: "input too large")
        }
        // Our own buffer (not a closure over an Array, whose rethrows would erase the typed error),
        // wiped afterwards because the text may be a private key.
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, 1))
        defer {
            OPENSSL_cleanse(buffer.baseAddress, buffer.count)
            buffer.deallocate()
        }
        _ = buffer.initialize(from: text.utf8)
        let bio = try OpenSSLCall.check("BIO_new_mem_buf", BIO_new_mem_buf(buffer.baseAddress, Int32(count)))
        defer { BIO_free(bio) }
        return try body(bio)
    }

    /// Collects what `body` writes into a memory BIO as a string (PEM output is ASCII).
    /// `secret` output goes through a BIO that wipes its buffer when freed.
    static func writing(secret: Bool = false, _ body: (OpaquePointer) -> Void) -> String {
        let bio = OpenSSLCall.expect("BIO_new", BIO_new(secret ? BIO_s_secmem() : BIO_s_mem()))
        defer { BIO_free(bio) }
        body(bio)
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = kb_ossl_bio_get_mem_data(bio, &data)
        guard length > 0, let data else { return "" }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
