import Upstreams
import BridgeSupport
import Synchronization

/// Kakao users whose unlink webhook arrived in the last 24 hours (docs/api.md#kakaos-unlink-webhook), and when. A Kakao ID
/// token is verified locally, with no call that would tell the service the person left: one issued before the webhook
/// must be refused although its signature and times are fine. Bounded by age and by size; survives a reload. This
/// process's mirror of the marks in the state store (`UnlinkMarkFollower`), so a login asks no store.
public final class UnlinkedKakaoUsers: Sendable {
    public static let rememberedSeconds: Int64 = 86_400
    public static let defaultMaxEntries = 100_000

    private let clock: UnixClock
    private let marks: Mutex<ExpiringTable<UnlinkMark>>

    public init(clock: UnixClock = .system, maxEntries: Int = defaultMaxEntries) {
        self.clock = clock
        self.marks = Mutex(ExpiringTable(maxEntries: maxEntries))
    }

    /// Remembers that `kakaoID` unlinked at `at` (now, when not said); a later time wins.
    public func record(_ kakaoID: Int64, at: Int64? = nil) {
        let now = clock.now()
        let at = at ?? now
        marks.withLock { marks in
            if let known = marks.entry(for: kakaoID, now: now), known.at >= at { return }
            _ = marks.insert(UnlinkMark(key: kakaoID, at: at), now: now)
        }
    }

    /// When `kakaoID` unlinked, if within the last 24 hours.
    public func unlinkedAt(_ kakaoID: Int64) -> Int64? {
        let now = clock.now()
        return marks.withLock { $0.entry(for: kakaoID, now: now)?.at }
    }
}

/// One unlink, remembered for `UnlinkedKakaoUsers.rememberedSeconds`.
package final class UnlinkMark: ExpiringEntry {
    package let key: Int64
    package let at: Int64
    package var expiresAt: Int64 { at + UnlinkedKakaoUsers.rememberedSeconds }

    package init(key: Int64, at: Int64) {
        self.key = key
        self.at = at
    }
}
