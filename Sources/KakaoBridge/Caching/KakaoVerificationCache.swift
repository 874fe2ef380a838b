import Metrics
import OpenSSLCrypto
import Synchronization

/// Trusts a Kakao token that verified successfully for `kakao.cache_seconds` (never past Kakao's own `expires_in`), so the
/// hook's check right after a token exchange, and an app retrying a login, do not ask Kakao again.
///
/// Entries are keyed by the token's SHA-256: a memory dump holds no usable token. Failures are never cached (a token that
/// Kakao refused a moment ago may be fine after Kakao recovers). Concurrent verifications of one token share one upstream
/// verification and its outcome (`SingleFlight`), run in a task of its own: a caller that goes away cancels nothing
/// the others wait for. At most `maxEntries` are kept; past that the oldest entry goes first.
public final class KakaoVerificationCache: KakaoVerifying {
    public static let defaultMaxEntries = 100_000

    private let inner: any KakaoVerifying
    private let ttl: Int64
    private let maxEntries: Int
    private let clock: UnixClock
    /// A verification that was under way when the user's unlink webhook arrived is not stored.
    private let unlinkedUsers: UnlinkedKakaoUsers?
    private let state = Mutex(State())
    private let flights = SingleFlight<TokenDigest, Result<VerifiedKakaoToken, Problem>>()
    // Resolved once: looking a metric up in the registry per request costs a lock and a hash of its labels.
    private let hits = Counter(label: "kakao_bridge_cache_total", dimensions: [("cache", "kakao"), ("result", "hit")])
    private let misses = Counter(label: "kakao_bridge_cache_total", dimensions: [("cache", "kakao"), ("result", "miss")])
    private let shared = Counter(label: "kakao_bridge_cache_total", dimensions: [("cache", "kakao"), ("result", "shared")])

    public init(
        wrapping inner: any KakaoVerifying, ttlSeconds: Int, maxEntries: Int = defaultMaxEntries, clock: UnixClock = .system,
        unlinkedUsers: UnlinkedKakaoUsers? = nil
    ) {
        self.inner = inner
        self.ttl = Int64(max(ttlSeconds, 0))
        self.maxEntries = max(1, maxEntries)
        self.clock = clock
        self.unlinkedUsers = unlinkedUsers
    }

    /// Drops every cached verification of one Kakao user at once (the unlink webhook,
    /// docs/api.md#kakaos-unlink-webhook); returns how many there were.
    @discardableResult
    public func dropUser(_ kakaoID: Int64) -> Int {
        state.withLock { $0.dropUser(kakaoID) }
    }

    public func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken {
        let inner = self.inner
        return try await verifyReportingLifetime(token: accessToken) { () async throws(Problem) -> VerifiedKakaoToken in
            try await inner.verifyReportingLifetime(accessToken: accessToken, context: context)
        }
    }

    /// The cache in front of any verification of a Kakao credential: Kakao ID tokens (docs/api.md#kakao-id-tokens) share
    /// this memory with access tokens, so that the hook's check of an ID token right after its exchange costs no signature.
    /// The two never collide: an ID token has dots, an access token none.
    func verifyReportingLifetime(
        token: String, verifiedBy verify: @escaping @Sendable () async throws(Problem) -> VerifiedKakaoToken
    ) async throws(Problem) -> VerifiedKakaoToken {
        let key = TokenDigest(token)
        if let cached = lookUp(key) {
            hits.increment()
            return cached
        }
        let (outcome, joined) = await flights.run(key) { () async -> Result<VerifiedKakaoToken, Problem> in
            if let cached = lookUp(key) { return .success(cached) }
            // Shielded: callers that joined this verification must still get their answer when the first caller goes
            // away (its client hung up) and its task is cancelled.
            let startedAt = clock.now()
            let outcome = await Task { () async -> Result<VerifiedKakaoToken, Problem> in
                do throws(Problem) {
                    return .success(try await verify())
                } catch {
                    return .failure(error)
                }
            }.value
            if case .success(let verified) = outcome { store(key, verified, startedAt: startedAt) }
            return outcome
        }
        (joined ? shared : misses).increment()
        return try outcome.get()
    }

    /// Entries currently held, live or expired but not yet dropped (tests, bounds).
    public var count: Int { state.withLock { $0.entries.count } }

    private func lookUp(_ key: TokenDigest) -> VerifiedKakaoToken? {
        let now = clock.now()
        return state.withLock { state -> VerifiedKakaoToken? in
            guard let entry = state.entries[key]?.entry else { return nil }
            guard now < entry.trustedUntil else {
                state.entries[key] = nil
                return nil
            }
            return VerifiedKakaoToken(user: entry.user, expiresIn: entry.tokenExpiresAt.map { $0 - now })
        }
    }

    /// Failures are never stored: a token Kakao refused a moment ago may be fine after Kakao recovers.
    private func store(_ key: TokenDigest, _ verified: VerifiedKakaoToken, startedAt: Int64) {
        guard ttl > 0 else { return }
        // Seconds are coarse: a verification that began in the second of the unlink is not trusted either.
        if let unlinkedAt = unlinkedUsers?.unlinkedAt(verified.user.id), unlinkedAt >= startedAt { return }
        let now = clock.now()
        var trustedUntil = now + ttl
        if let expiresIn = verified.expiresIn { trustedUntil = min(trustedUntil, now + expiresIn) }
        guard trustedUntil > now else { return }
        let tokenExpiresAt = verified.expiresIn.map { now + $0 }
        state.withLock { state in
            state.insert(key, userID: verified.user.id, now: now, maxEntries: maxEntries) { serial in
                CachedVerification.make(user: verified.user, trustedUntil: trustedUntil, tokenExpiresAt: tokenExpiresAt, serial: serial)
            }
        }
    }

    // MARK: Storage

    private struct State {
        /// One reference per token: the entry's size is what a crowd of new logins costs (`CachedVerification`).
        var entries: [TokenDigest: Slot] = [:]
        /// Insertion order for eviction; `head` is the oldest slot still in use. A slot whose serial no longer matches its
        /// entry was superseded by a later insertion of the same token and is skipped.
        var order: [(key: TokenDigest, serial: UInt64)] = []
        var head = 0
        var nextSerial: UInt64 = 0

        /// The user's id beside the reference, so that `dropUser` finds a user's entries without reading any of them.
        struct Slot {
            let userID: Int64
            let entry: CachedVerification
        }

        mutating func insert(_ key: TokenDigest, userID: Int64, now: Int64, maxEntries: Int, _ make: (UInt64) -> CachedVerification) {
            nextSerial &+= 1
            if entries.updateValue(Slot(userID: userID, entry: make(nextSerial)), forKey: key) == nil {
                dropOldest(now: now, keeping: maxEntries)
            }
            order.append((key, nextSerial))
            compact()
        }

        /// Every entry lives the same TTL, so the oldest insertions expire first: dropping from the head removes expired
        /// entries and, past the bound, the oldest live ones.
        private mutating func dropOldest(now: Int64, keeping maxEntries: Int) {
            while head < order.count {
                let (key, serial) = order[head]
                guard let entry = entries[key]?.entry, entry.serial == serial else {
                    head += 1
                    continue
                }
                guard entries.count > maxEntries || entry.trustedUntil <= now else { break }
                entries[key] = nil
                head += 1
            }
        }

        /// A walk over the table rather than a per-user index: the index cost about 90 bytes per entry for every login,
        /// while an unlink is rare, and the walk reads only the table's own storage (`Slot.userID`), no entry: 22 ms over
        /// 100,000 entries in a debug build, under the lock.
        mutating func dropUser(_ kakaoID: Int64) -> Int {
            let keys = entries.compactMap { $0.value.userID == kakaoID ? $0.key : nil }
            for key in keys { entries[key] = nil }
            return keys.count
        }

        private mutating func compact() {
            guard head > 1024, head * 2 > order.count else { return }
            order.removeFirst(head)
            head = 0
        }
    }
}

/// SHA-256 of a token as four words: cheap to hash and compare, and not the token.
struct TokenDigest: Hashable, Sendable {
    let words: (UInt64, UInt64, UInt64, UInt64)

    init(_ token: String) {
        let digest = SHA256.hash(Array(token.utf8))
        words = digest.withUnsafeBytes { bytes in
            (
                bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            )
        }
    }

    static func == (lhs: TokenDigest, rhs: TokenDigest) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
