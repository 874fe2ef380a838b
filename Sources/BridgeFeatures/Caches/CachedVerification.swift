import BridgeSupport
import OpenSSLCrypto
import Upstreams

/// One entry of `KakaoVerificationCache`: a verified Kakao user, how long to trust them, and the token's digest, in a
/// single allocation.
///
/// Why packed: the cache holds every distinct token verified in the last `kakao.cache_seconds` (at most `KakaoVerificationCache.defaultMaxEntries`),
/// so its per-entry size is the service's memory under a crowd of new logins. As a struct of `KakaoUser`'s strings, an
/// entry took a dictionary slot, strings of their own and a per-user index; packed, the table's slot is one reference
/// and the entry is one object (docs/benchmarks.md#memory-and-speed-rules-in-the-code has both sizes).
///
/// Why the digest is here: the table is keyed by its first 64 bits and the eviction order holds references, so the
/// 32 bytes are kept once, in the entry, instead of in every table slot and every eviction slot.
///
/// Layout: the header below, then the nickname's, the email's and the picture URL's UTF-8 bytes, back to back. A length of
/// `absent` stands for a field Kakao did not return, `Int64.min` for an expiry Kakao did not give, -1 for an email
/// Kakao did not say was verified or not: optionals would take 10 bytes more per entry (63 bytes of header instead of
/// 73). Immutable once made; only the cache, under its lock, holds one.
package final class CachedVerification: ManagedBuffer<CachedVerification.Header, UInt8> {
    package struct Header {
        package let digest: TokenDigest
        package let userID: Int64
        package let trustedUntil: Int64
        package let tokenExpiry: Int64
        package let nicknameCount: UInt16
        package let emailCount: UInt16
        package let pictureCount: UInt16
        package let emailVerified: Int8
    }

    private static let absent = UInt16.max

    /// `nil` for a user with a field of 64 KiB or more, who is then not cached (Kakao's nicknames, emails and image URLs
    /// are far shorter).
    package static func make(digest: TokenDigest, user: KakaoUser, trustedUntil: Int64, tokenExpiresAt: Int64?) -> CachedVerification? {
        // Runs once per verified login: no arrays of the fields, just their lengths and one copy each.
        func length(_ text: String?) -> UInt16? {
            guard let text else { return absent }
            let count = text.utf8.count
            return count < Int(absent) ? UInt16(count) : nil
        }
        guard let nickname = length(user.nickname), let email = length(user.email), let picture = length(user.profileImageURL)
        else { return nil }
        func bytes(_ count: UInt16) -> Int { count == absent ? 0 : Int(count) }
        let buffer = create(minimumCapacity: bytes(nickname) + bytes(email) + bytes(picture)) { _ in
            Header(
                digest: digest, userID: user.id, trustedUntil: trustedUntil, tokenExpiry: tokenExpiresAt ?? Int64.min,
                nicknameCount: nickname, emailCount: email, pictureCount: picture,
                emailVerified: user.emailVerified.map { $0 ? 1 : 0 } ?? -1
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

    package var userID: Int64 { header.userID }
    package var trustedUntil: Int64 { header.trustedUntil }
    package var tokenExpiresAt: Int64? { header.tokenExpiry == Int64.min ? nil : header.tokenExpiry }
    package var digest: TokenDigest { header.digest }

    /// The user as stored: new strings, made when the entry is used (a cache hit), not kept.
    package var user: KakaoUser {
        let header = self.header
        return withUnsafeMutablePointerToElements { bytes in
            var offset = 0
            func next(_ count: UInt16) -> String? {
                guard count != Self.absent else { return nil }
                defer { offset += Int(count) }
                return String(decoding: UnsafeBufferPointer(start: bytes + offset, count: Int(count)), as: UTF8.self)
            }
            let nickname = next(header.nicknameCount)
            let email = next(header.emailCount)
            let picture = next(header.pictureCount)
            return KakaoUser(
                id: header.userID, nickname: nickname, email: email,
                emailVerified: header.emailVerified < 0 ? nil : header.emailVerified == 1, profileImageURL: picture
            )
        }
    }
}

/// The storage behind `KakaoVerificationCache`, which keeps it under a lock: an `ExpiringTable` of entries keyed by 64
/// bits of the token's digest, compared whole on the way out. No clock and no locking, so the tests drive it with
/// digests of their choosing.
package struct VerificationTable {
    /// Keyed by the first 64 bits of the token's SHA-256; the entry holds all 256, and a lookup compares them, so two
    /// tokens that share the 64 bits (about one chance in 10^10 among 100,000 entries) cost one of them its place,
    /// never its user. A slot is two words where the whole digest as key made it six; the order holds one reference.
    private var table: ExpiringTable<CachedVerification>

    package init(maxEntries: Int = KakaoVerificationCache.defaultMaxEntries) {
        table = ExpiringTable(maxEntries: maxEntries)
    }

    /// Entries held, live or expired but not yet dropped.
    package var count: Int { table.count }

    /// The entry for exactly this digest while it is trusted; an expired one is dropped on the way.
    package mutating func entry(for digest: TokenDigest, now: Int64) -> CachedVerification? {
        guard let entry = table.entry(for: digest.prefix, now: now), entry.digest == digest else { return nil }
        return entry
    }

    /// Every entry lives the same TTL, so the oldest insertions expire first: the table drops from the front.
    package mutating func insert(_ entry: CachedVerification, now: Int64) {
        table.insert(entry, now: now)
    }

    /// A walk over the table rather than a per-user index: the index cost memory per entry for every login, while an
    /// unlink is rare. Entries that stay are only read, never copied.
    package mutating func dropUser(_ kakaoID: Int64) -> Int {
        table.removeAll { $0.userID == kakaoID }
    }
}

extension CachedVerification: ExpiringEntry {
    package var key: UInt64 { digest.prefix }
    package var expiresAt: Int64 { trustedUntil }
}
