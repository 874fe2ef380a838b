import BridgeSupport
import StateStore
import Synchronization

/// Kakao users whose unlink webhook arrived in the last 24 hours (docs/api.md#kakaos-unlink-webhook), and when. A Kakao ID
/// token is verified locally, with no call that would tell the service the person left: one issued before the webhook
/// must be refused although its signature and times are fine. Bounded by age and by size; survives a reload. This
/// process's mirror of the marks in the state store (`UnlinkMarkFollower`), so a login asks no store.
public final class UnlinkedKakaoUsers: Sendable {
    /// As long as the state store keeps the mark (`UnlinkMark.lifetimeSeconds`): one rule for both.
    public static let rememberedSeconds = UnlinkMark.lifetimeSeconds
    public static let defaultMaxEntries = 100_000

    private let clock: UnixClock
    private let marks: Mutex<ExpiringTable<RememberedMark>>

    public init(clock: UnixClock = .system, maxEntries: Int = defaultMaxEntries) {
        self.clock = clock
        self.marks = Mutex(ExpiringTable(maxEntries: maxEntries))
    }

    /// Remembers that `kakaoID` unlinked at `at` (now, when not said); a later time wins. An unlink is a change too.
    public func record(_ kakaoID: Int64, at: Int64? = nil) {
        remember(kakaoID, sessionsEndedAt: at ?? clock.now())
    }

    /// Remembers that `kakaoID`'s account changed now, as this process learned it (a security event such as
    /// `token-revoked`, here or at another instance): a verification of theirs that began before is not cached.
    public func recordChange(_ kakaoID: Int64) {
        remember(kakaoID, sessionsEndedAt: nil)
    }

    private func remember(_ kakaoID: Int64, sessionsEndedAt: Int64?) {
        let now = clock.now()
        marks.withLock { marks in
            let known = marks.entry(for: kakaoID, now: now)
            let endedAt = max(known?.at ?? 0, sessionsEndedAt ?? 0)
            marks.insert(RememberedMark(key: kakaoID, at: endedAt, changedAt: now), now: now)
        }
    }

    /// When `kakaoID` unlinked, if within the last 24 hours.
    public func unlinkedAt(_ kakaoID: Int64) -> Int64? {
        let now = clock.now()
        return marks.withLock { mark in
            guard let at = mark.entry(for: kakaoID, now: now)?.at, at > 0 else { return nil }
            return at
        }
    }

    /// Whether a verification of `kakaoID` that began at `startedAt` may be cached: not when the person unlinked, or this
    /// process learned of a change of their account, since it began. Seconds are coarse: a verification that began in
    /// the second of the mark is not trusted either.
    public func allowsCaching(_ kakaoID: Int64, verificationStartedAt startedAt: Int64) -> Bool {
        let now = clock.now()
        guard let mark = marks.withLock({ $0.entry(for: kakaoID, now: now) }) else { return true }
        return max(mark.at, mark.changedAt) < startedAt
    }
}

/// This process's copy of one `UnlinkMark` (an unlink or a change), remembered for `UnlinkedKakaoUsers.rememberedSeconds`
/// after the later of its two times; a class, since `ExpiringTable` tells a replaced entry by identity.
package final class RememberedMark: ExpiringEntry {
    package let key: Int64
    /// When the person's sessions ended (0: they did not, only their account changed).
    package let at: Int64
    /// When this process learned of the latest change (an unlink included).
    package let changedAt: Int64
    package var expiresAt: Int64 { max(at, changedAt) + UnlinkedKakaoUsers.rememberedSeconds }

    package init(key: Int64, at: Int64, changedAt: Int64) {
        self.key = key
        self.at = at
        self.changedAt = changedAt
    }
}
