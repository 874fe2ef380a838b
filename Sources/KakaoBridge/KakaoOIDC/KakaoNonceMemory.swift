import OpenSSLCrypto
import Synchronization

/// The process's side of the nonces (docs/api.md#get-v1kakaononce): the generated HMAC key used while
/// `kakao.oidc.nonce_secret` is empty, and the nonces already used. One per process, carried across reloads: a reload
/// must neither invalidate the nonces apps hold nor forget which were used (a replay would pass).
///
/// Used nonces are remembered until they expire, so the memory is bounded by the issuing rate times the nonce lifetime,
/// and by `maxEntries`. When that many unexpired nonces are in use, new ones are refused rather than old ones forgotten:
/// forgetting would let a replay through.
public final class KakaoNonceMemory: Sendable {
    public static let defaultMaxEntries = 500_000

    /// 32 random bytes, made once per process.
    let generatedSecret: [UInt8]
    private let clock: UnixClock
    private let maxEntries: Int
    private let state = Mutex(State())

    private struct State {
        var used: [NonceID: Int64] = [:]
        /// Use order. Every nonce lives the same time, so the head is about the first to expire; one used out of issue
        /// order lingers at most one lifetime longer, which `use` tolerates by comparing expiries.
        var order: [(id: NonceID, expiresAt: Int64)] = []
        var head = 0
    }

    enum Outcome: Equatable {
        case first
        case replayed
        case full
    }

    public init(clock: UnixClock = .system, maxEntries: Int = defaultMaxEntries) {
        self.generatedSecret = SecureRandom.bytes(count: 32)
        self.clock = clock
        self.maxEntries = max(1, maxEntries)
    }

    /// Records the nonce's use; `.first` exactly once per nonce while it is unexpired.
    func use(_ ticket: KakaoNonces.Ticket) -> Outcome {
        let now = clock.now()
        return state.withLock { state in
            Self.dropExpired(&state, now: now)
            if let expiresAt = state.used[ticket.id], expiresAt > now { return .replayed }
            guard state.used.count < maxEntries else { return .full }
            state.used[ticket.id] = ticket.expiresAt
            state.order.append((ticket.id, ticket.expiresAt))
            return .first
        }
    }

    /// Nonces remembered now (tests, bounds).
    var count: Int { state.withLock { $0.used.count } }

    private static func dropExpired(_ state: inout State, now: Int64) {
        while state.head < state.order.count, state.order[state.head].expiresAt <= now {
            let (id, expiresAt) = state.order[state.head]
            if state.used[id] == expiresAt { state.used[id] = nil }
            state.head += 1
        }
        if state.head > 1024, state.head * 2 > state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }
}
