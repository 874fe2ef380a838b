import BridgeSupport
import Synchronization
import Upstreams

/// Users found in step with their Kakao profile, for `firebase.user_cache_seconds`: within that time a login with the
/// same profile makes no Admin call (docs/api.md#user-sync). Keyed by the Kakao user's own uid (`kakao:<id>`); the profile
/// itself is the check, so a changed nickname or picture is synced at once. The entry also holds the uid the login mints
/// for: the linked account's, when `kakao:<id>` is a link record. Bounded: past `maxEntries` the oldest entries go first
/// (`ExpiringTable`).
final class UserRecordCache: Sendable {
    static let defaultMaxEntries = 100_000

    private let ttl: Int64
    private let clock: UnixClock
    private let entries: Mutex<ExpiringTable<InStepUser>>

    init(ttlSeconds: Int, maxEntries: Int = defaultMaxEntries, clock: UnixClock) {
        self.ttl = Int64(max(ttlSeconds, 0))
        self.clock = clock
        self.entries = Mutex(ExpiringTable(maxEntries: maxEntries))
    }

    /// The uid to mint for, when the user was found in step with this very profile within the TTL.
    func inStepUID(uid: String, with profile: SyncedProfile) -> String? {
        guard ttl > 0 else { return nil }
        let now = clock.now()
        return entries.withLock { entries in
            guard let entry = entries.entry(for: uid, now: now), entry.profile == profile else { return nil }
            return entry.mintUID
        }
    }

    func remember(uid: String, profile: SyncedProfile, mintUID: String) {
        guard ttl > 0 else { return }
        let now = clock.now()
        let entry = InStepUser(key: uid, profile: profile, mintUID: mintUID, expiresAt: now + ttl)
        entries.withLock { $0.insert(entry, now: now) }
    }

    /// A user whose record changed here (unlinked, revoked, disabled) must be looked up again.
    func forget(uid: String) { entries.withLock { _ = $0.remove(uid) } }

    /// The users another instance's mark names when only the mark's key is known (Naver's and LINE's marks carry a digest
    /// of the id, not the uid): a walk, as rare as the marks.
    func forget(where matching: @Sendable (String) -> Bool) { entries.withLock { _ = $0.removeAll { matching($0.key) } } }
}

/// A user found in step with this profile, and the uid its logins mint for.
final class InStepUser: ExpiringEntry, Sendable {
    let key: String
    let profile: SyncedProfile
    let mintUID: String
    let expiresAt: Int64

    init(key: String, profile: SyncedProfile, mintUID: String, expiresAt: Int64) {
        self.key = key
        self.profile = profile
        self.mintUID = mintUID
        self.expiresAt = expiresAt
    }
}

/// What of a provider's user the sync writes, and so what a cached "in step" is about: a changed name, picture or
/// verified email is synced at once, whatever else the provider's profile holds.
struct SyncedProfile: Sendable, Equatable {
    var displayName: String?
    var photoURL: String?
    var verifiedEmail: String?

    init<User: ProviderProfile>(_ user: User) {
        displayName = user.displayName
        photoURL = user.photoURL
        verifiedEmail = user.verifiedEmail
    }
}
