import Synchronization

/// Kakao users whose unlink webhook arrived in the last 24 hours (docs/api.md#kakaos-unlink-webhook), and when. A Kakao ID
/// token is verified locally, with no call that would tell the service the person left: one issued before the webhook
/// must be refused although its signature and times are fine. Bounded by age and by size; survives a reload.
public final class UnlinkedKakaoUsers: Sendable {
    public static let rememberedSeconds: Int64 = 86_400
    public static let defaultMaxEntries = 100_000

    private let clock: UnixClock
    private let maxEntries: Int
    private let state = Mutex(State())

    private struct State {
        var unlinkedAt: [Int64: Int64] = [:]
        /// Arrival order for dropping the oldest; an id unlinked twice appears twice and the stale slot is skipped.
        var order: [(id: Int64, at: Int64)] = []
        var head = 0
    }

    public init(clock: UnixClock = .system, maxEntries: Int = defaultMaxEntries) {
        self.clock = clock
        self.maxEntries = max(1, maxEntries)
    }

    /// Remembers that `kakaoID` unlinked now.
    public func record(_ kakaoID: Int64) {
        let now = clock.now()
        state.withLock { state in
            state.unlinkedAt[kakaoID] = now
            state.order.append((kakaoID, now))
            Self.dropOld(&state, now: now, maxEntries: maxEntries)
        }
    }

    /// When `kakaoID` unlinked, if within the last 24 hours.
    public func unlinkedAt(_ kakaoID: Int64) -> Int64? {
        let now = clock.now()
        return state.withLock { state in
            guard let at = state.unlinkedAt[kakaoID], now - at < Self.rememberedSeconds else { return nil }
            return at
        }
    }

    private static func dropOld(_ state: inout State, now: Int64, maxEntries: Int) {
        while state.head < state.order.count {
            let (id, at) = state.order[state.head]
            if state.unlinkedAt[id] == at {
                guard state.unlinkedAt.count > maxEntries || now - at >= rememberedSeconds else { break }
                state.unlinkedAt[id] = nil
            }
            state.head += 1
        }
        if state.head > 1024, state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }
}
