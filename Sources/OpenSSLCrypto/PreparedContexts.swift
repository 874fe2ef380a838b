import COpenSSL
import Synchronization

/// RS256 contexts of one key, prepared once and reused: setting one up in OpenSSL 3 fetches the algorithms from the
/// provider and configures padding and digest every time, work that adds up at a signature and a verification per login
/// (docs/benchmarks.md#memory-and-speed-rules-in-the-code). A context serves one operation at a time, so idle ones wait
/// in a small pool; one that failed is freed, not reused, because its state is then unknown.
final class PreparedContexts: Sendable {
    enum Operation: Sendable {
        case sign
        case verify
    }

    private static let maxIdle = 16

    private let key: PKey
    private let operation: Operation
    private let idle = Mutex<[PreparedContext]>([])

    init(key: PKey, operation: Operation) {
        self.key = key
        self.operation = operation
    }

    deinit {
        idle.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
            contexts = []
        }
    }

    /// Runs `body` with a context of its own; `body` returns OpenSSL's result, judged by the funnel under `call`.
    func run(_ call: String, _ body: (OpaquePointer) -> Int32) throws(CryptoError) {
        let context = try take()
        do {
            try OpenSSLCall.check(call, body(context.pointer))
        } catch {
            EVP_PKEY_CTX_free(context.pointer)
            throw error
        }
        give(context)
    }

    private func take() throws(CryptoError) -> PreparedContext {
        if let pooled = idle.withLock({ $0.popLast() }) { return pooled }
        let pointer = try OpenSSLCall.check("EVP_PKEY_CTX_new", EVP_PKEY_CTX_new(key.pointer, nil))
        do throws(CryptoError) {
            switch operation {
            case .sign: try OpenSSLCall.check("EVP_PKEY_sign_init", EVP_PKEY_sign_init(pointer))
            case .verify: try OpenSSLCall.check("EVP_PKEY_verify_init", EVP_PKEY_verify_init(pointer))
            }
            try OpenSSLCall.check("EVP_PKEY_CTX_set_rsa_padding", EVP_PKEY_CTX_set_rsa_padding(pointer, RSA_PKCS1_PADDING))
            try OpenSSLCall.check(
                "EVP_PKEY_CTX_set_signature_md", EVP_PKEY_CTX_set_signature_md(pointer, FetchedDigest.sha256.pointer)
            )
        } catch {
            EVP_PKEY_CTX_free(pointer)
            throw error
        }
        return PreparedContext(pointer: pointer)
    }

    private func give(_ context: PreparedContext) {
        let kept = idle.withLock { contexts in
            guard contexts.count < Self.maxIdle else { return false }
            contexts.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
    }
}

/// An `EVP_PKEY_CTX` that only the thread holding it uses.
private struct PreparedContext: @unchecked Sendable {
    let pointer: OpaquePointer
}
