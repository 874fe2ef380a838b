import Upstreams
import BridgeSupport
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
