import COpenSSL

/// A digest fetched from the default provider once for the process. `EVP_sha256()` makes every use look the algorithm
/// up again in the provider's store, under a lock that both event loops then take for every login
/// (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
final class FetchedDigest: @unchecked Sendable {
    static let sha256 = FetchedDigest("SHA256")

    /// Immutable once fetched; OpenSSL allows one `EVP_MD` in many threads at once.
    let pointer: OpaquePointer

    private init(_ name: String) {
        pointer = OpenSSLCall.expect("EVP_MD_fetch", EVP_MD_fetch(nil, name, nil))
    }
}
