import COpenSSL
import Synchronization

/// RS256 signing with contexts prepared once per key and reused: setting up a signature context in OpenSSL 3 fetches the
/// algorithms from the provider and configures padding and digest every time, work that adds up at one signature per
/// login. A context serves one signature at a time, so idle ones wait in a small pool.
final class RS256Signer: Sendable {
    /// SHA-256 fetched once; `EVP_sha256()` would make every digest look the algorithm up again.
    private static let sha256 = FetchedDigest()
    private static let maxIdle = 16

    private let key: PKey
    private let idle = Mutex<[SignContext]>([])

    init(key: PKey) { self.key = key }

    deinit {
        idle.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
            contexts = []
        }
    }

    /// RSASSA-PKCS1-v1_5 over SHA-256 of `message`.
    func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var digestLength: UInt32 = 0
        let hashed = message.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &digestLength, Self.sha256.pointer, nil)
        }
        try OpenSSLCall.check("EVP_Digest", hashed)

        let context = try take()
        var signature = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key.pointer)))
        var length = signature.count
        let result = signature.withUnsafeMutableBufferPointer { output in
            EVP_PKEY_sign(context.pointer, output.baseAddress, &length, digest, digest.count)
        }
        guard result > 0 else {
            // Its state is unknown after a failure: not reused.
            EVP_PKEY_CTX_free(context.pointer)
            throw CryptoError.openSSL(call: "EVP_PKEY_sign")
        }
        give(context)
        signature.removeSubrange(length...)
        return signature
    }

    private func take() throws(CryptoError) -> SignContext {
        if let pooled = idle.withLock({ $0.popLast() }) { return pooled }
        let pointer = try OpenSSLCall.check("EVP_PKEY_CTX_new", EVP_PKEY_CTX_new(key.pointer, nil))
        do throws(CryptoError) {
            try OpenSSLCall.check("EVP_PKEY_sign_init", EVP_PKEY_sign_init(pointer))
            try OpenSSLCall.check("EVP_PKEY_CTX_set_rsa_padding", EVP_PKEY_CTX_set_rsa_padding(pointer, RSA_PKCS1_PADDING))
            try OpenSSLCall.check("EVP_PKEY_CTX_set_signature_md", EVP_PKEY_CTX_set_signature_md(pointer, Self.sha256.pointer))
        } catch {
            EVP_PKEY_CTX_free(pointer)
            throw error
        }
        return SignContext(pointer: pointer)
    }

    private func give(_ context: SignContext) {
        let kept = idle.withLock { contexts in
            guard contexts.count < Self.maxIdle else { return false }
            contexts.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
    }
}

/// An `EVP_PKEY_CTX` that only the thread holding it uses.
private struct SignContext: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A digest fetched from the default provider once for the process.
private final class FetchedDigest: @unchecked Sendable {
    let pointer: OpaquePointer

    init() {
        pointer = OpenSSLCall.expect("EVP_MD_fetch", EVP_MD_fetch(nil, "SHA256", nil))
    }
}
