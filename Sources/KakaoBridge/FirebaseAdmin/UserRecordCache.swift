import Synchronization

/// Users found in step with their Kakao profile, for `firebase.user_cache_seconds`: within that time a login with the
/// same profile makes no Admin call (docs/api.md#user-sync). Keyed by the Kakao user's own uid (`kakao:<id>`); the profile
/// itself is the check, so a changed nickname or picture is synced at once. The entry also holds the uid the login mints
/// for: the linked account's, when `kakao:<id>` is a link record. Bounded: past `maxEntries` the expired entries go, then
/// everything.
final class UserRecordCache: Sendable {
    static let defaultMaxEntries = 100_000

    private struct Entry {
        var profile: KakaoUser
        var mintUID: String
        var until: Int64
    }

    private let ttl: Int64
    private let maxEntries: Int
    private let clock: UnixClock
    private let entries = Mutex<[String: Entry]>([:])

    init(ttlSeconds: Int, maxEntries: Int = defaultMaxEntries, clock: UnixClock) {
        self.ttl = Int64(max(ttlSeconds, 0))
        self.maxEntries = max(1, maxEntries)
        self.clock = clock
    }

    /// The uid to mint for, when the user was found in step with this very profile within the TTL.
    func inStepUID(uid: String, with profile: KakaoUser) -> String? {
        guard ttl > 0 else { return nil }
        let now = clock.now()
        return entries.withLock { entries in
            guard let entry = entries[uid], now < entry.until, entry.profile == profile else { return nil }
            return entry.mintUID
        }
    }

    func remember(uid: String, profile: KakaoUser, mintUID: String) {
        guard ttl > 0 else { return }
        let now = clock.now()
        entries.withLock { entries in
            if entries.count >= maxEntries, entries[uid] == nil {
                entries = entries.filter { now < $0.value.until }
                // Every entry is live: a burst of distinct users, which the cache cannot help with anyway.
                if entries.count >= maxEntries { entries.removeAll(keepingCapacity: true) }
            }
            entries[uid] = Entry(profile: profile, mintUID: mintUID, until: now + ttl)
        }
    }

    /// A user whose record changed here (unlinked, revoked, disabled) must be looked up again.
    func forget(uid: String) { _ = entries.withLock { $0.removeValue(forKey: uid) } }
}
