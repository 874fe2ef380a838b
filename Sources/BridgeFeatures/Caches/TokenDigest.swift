import OpenSSLCrypto

/// SHA-256 of a token (and of its kind) as four words: cheap to hash and compare, and not the token.
package struct TokenDigest: Hashable, Sendable {
    package let words: (UInt64, UInt64, UInt64, UInt64)

    /// The kind's byte comes first, so an access token and an ID token of the same text still differ.
    package init(_ token: String, kind: KakaoCredentialKind = .accessToken) {
        var bytes: [UInt8] = [kind.rawValue]
        bytes.append(contentsOf: token.utf8)
        let digest = SHA256.hash(bytes)
        words = digest.withUnsafeBytes { bytes in
            (
                bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            )
        }
    }

    /// Four words given as they are: tests that need two digests sharing their first word.
    package init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    /// The key of `VerificationTable`; any 64 bits of SHA-256 are as good as any other.
    package var prefix: UInt64 { words.0 }

    package static func == (lhs: TokenDigest, rhs: TokenDigest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
