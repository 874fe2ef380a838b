import DequeModule

/// The storage behind `KakaoVerificationCache`, which keeps it under a lock: its entries by token digest, and the order
/// they go in. Pure bookkeeping with no clock and no locking, so the tests drive it with digests of their choosing.
struct VerificationTable {
    /// Keyed by the first 64 bits of the token's SHA-256; the entry holds all 256, and a lookup compares them, so two
    /// tokens that share the 64 bits (about one chance in 10^10 among 100,000 entries) cost one of them its place,
    /// never its user. A slot is 16 bytes where the whole digest as key made it 48.
    private var entries: [UInt64: CachedVerification] = [:]
    /// Insertion order for eviction, oldest first, one reference each. An entry that was replaced or dropped since
    /// is no longer the table's entry for its key, and is skipped when it reaches the front.
    private var order = Deque<CachedVerification>()

    /// Entries held, live or expired but not yet dropped.
    var count: Int { entries.count }

    /// The entry for exactly this digest while it is trusted; an expired one is dropped on the way.
    mutating func entry(for digest: TokenDigest, now: Int64) -> CachedVerification? {
        guard let entry = entries[digest.prefix], entry.digest == digest else { return nil }
        guard now < entry.trustedUntil else {
            entries[digest.prefix] = nil
            return nil
        }
        return entry
    }

    mutating func insert(_ entry: CachedVerification, now: Int64, maxEntries: Int) {
        if entries.updateValue(entry, forKey: entry.digest.prefix) == nil {
            dropOldest(now: now, keeping: maxEntries)
        }
        order.append(entry)
    }

    /// Every entry lives the same TTL, so the oldest insertions expire first: dropping from the front removes expired
    /// entries and, past the bound, the oldest live ones.
    private mutating func dropOldest(now: Int64, keeping maxEntries: Int) {
        while let oldest = order.first {
            let key = oldest.digest.prefix
            if entries[key] === oldest {
                guard entries.count > maxEntries || oldest.trustedUntil <= now else { break }
                entries[key] = nil
            }
            order.removeFirst()
        }
    }

    /// A walk over the table rather than a per-user index: the index cost about 90 bytes per entry for every login,
    /// while an unlink is rare. Entries that stay are only read, never copied.
    mutating func dropUser(_ kakaoID: Int64) -> Int {
        let keys = entries.compactMap { $0.value.userID == kakaoID ? $0.key : nil }
        for key in keys { entries[key] = nil }
        return keys.count
    }
}
