import BridgeSupport
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
    /// Refuses a new nonce when full of live ones; every nonce lives the same time, so the front is about the first to
    /// expire (one used out of issue order lingers at most one lifetime longer).
    private let used: Mutex<ExpiringTable<UsedNonce>>

    enum Outcome: Equatable {
        case first
        case replayed
        case full
    }

    public init(clock: UnixClock = .system, maxEntries: Int = defaultMaxEntries) {
        self.generatedSecret = SecureRandom.bytes(count: 32)
        self.clock = clock
        self.used = Mutex(ExpiringTable(maxEntries: maxEntries, whenFull: .refuseNew))
    }

    /// Records the nonce's use; `.first` exactly once per nonce while it is unexpired.
    func use(_ ticket: KakaoNonces.Ticket) -> Outcome {
        let now = clock.now()
        return used.withLock { used in
            if used.entry(for: ticket.id, now: now) != nil { return .replayed }
            return used.insert(UsedNonce(key: ticket.id, expiresAt: ticket.expiresAt), now: now) ? .first : .full
        }
    }

    /// Nonces remembered now (tests, bounds).
    var count: Int { used.withLock { $0.count } }
}

/// A used nonce, remembered until it expires.
final class UsedNonce: ExpiringEntry {
    let key: NonceID
    let expiresAt: Int64

    init(key: NonceID, expiresAt: Int64) {
        self.key = key
        self.expiresAt = expiresAt
    }
}
