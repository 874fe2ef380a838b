/// One entry of `KakaoVerificationCache`: a verified Kakao user, how long to trust them, and the token's digest, in a
/// single allocation.
///
/// Why packed: the cache holds every distinct token verified in the last `kakao.cache_seconds` (at most `KakaoVerificationCache.defaultMaxEntries`),
/// so its per-entry size is the service's memory under a crowd of new logins. As a struct of `KakaoUser`'s strings, an
/// entry cost about 520 bytes (a 136-byte dictionary slot at the table's load factor, an email and a picture URL of their
/// own, and a per-user index); packed, the table's slot is one reference and the entry is one object of about 160 bytes.
///
/// Why the digest is here: the table is keyed by its first 64 bits and the eviction order holds references, so the
/// 32 bytes are kept once, in the entry, instead of in every table slot and every eviction slot (`crowd`'s peak: 323
/// → 194 bytes an entry, table and order included).
///
/// Layout: the header below, then the nickname's, the email's and the picture URL's UTF-8 bytes, back to back. A length of
/// -1 stands for a field Kakao did not return. Immutable once made; only the cache, under its lock, holds one.
final class CachedVerification: ManagedBuffer<CachedVerification.Header, UInt8> {
    struct Header {
        let digest: TokenDigest
        let userID: Int64
        let trustedUntil: Int64
        let tokenExpiresAt: Int64?
        let nicknameCount: Int32
        let emailCount: Int32
        let pictureCount: Int32
        let emailVerified: Bool?
    }

    static func make(digest: TokenDigest, user: KakaoUser, trustedUntil: Int64, tokenExpiresAt: Int64?) -> CachedVerification {
        // Runs once per verified login: no arrays of the fields, just their lengths and one copy each.
        func length(_ text: String?) -> Int32 { text.map { Int32(clamping: $0.utf8.count) } ?? -1 }
        let nickname = length(user.nickname), email = length(user.email), picture = length(user.profileImageURL)
        let buffer = create(minimumCapacity: Int(max(nickname, 0) + max(email, 0) + max(picture, 0))) { _ in
            Header(
                digest: digest, userID: user.id, trustedUntil: trustedUntil, tokenExpiresAt: tokenExpiresAt,
                nicknameCount: nickname, emailCount: email, pictureCount: picture, emailVerified: user.emailVerified
            )
        }
        buffer.withUnsafeMutablePointerToElements { bytes in
            var next = bytes
            func copy(_ text: String?) {
                guard let text else { return }
                let count = text.utf8.count
                _ = UnsafeMutableBufferPointer(start: next, count: count).initialize(from: text.utf8)
                next += count
            }
            copy(user.nickname)
            copy(user.email)
            copy(user.profileImageURL)
        }
        return unsafeDowncast(buffer, to: CachedVerification.self)
    }

    var userID: Int64 { header.userID }
    var trustedUntil: Int64 { header.trustedUntil }
    var tokenExpiresAt: Int64? { header.tokenExpiresAt }
    var digest: TokenDigest { header.digest }

    /// The user as stored: new strings, made when the entry is used (a cache hit), not kept.
    var user: KakaoUser {
        let header = self.header
        return withUnsafeMutablePointerToElements { bytes in
            var offset = 0
            func next(_ count: Int32) -> String? {
                guard count >= 0 else { return nil }
                defer { offset += Int(count) }
                return String(decoding: UnsafeBufferPointer(start: bytes + offset, count: Int(count)), as: UTF8.self)
            }
            let nickname = next(header.nicknameCount)
            let email = next(header.emailCount)
            let picture = next(header.pictureCount)
            return KakaoUser(
                id: header.userID, nickname: nickname, email: email, emailVerified: header.emailVerified, profileImageURL: picture
            )
        }
    }
}
