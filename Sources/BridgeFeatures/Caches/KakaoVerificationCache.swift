import Upstreams
import BridgeSupport
import Metrics
import Synchronization

/// Trusts a Kakao token that verified successfully for `kakao.cache_seconds` (never past Kakao's own `expires_in`), so the
/// hook's check right after a token exchange, and an app retrying a login, do not ask Kakao again.
///
/// Entries are keyed by the SHA-256 of the token and its kind (access token or Kakao ID token): a memory dump holds no
/// usable token, and a verification of an ID token never answers for the routes that take access tokens only. Failures are never cached (a token that
/// Kakao refused a moment ago may be fine after Kakao recovers). Concurrent verifications of one token share one upstream
/// verification and its outcome (`SingleFlight`), and a caller that goes away cancels nothing the others wait for
/// (`Shielding`). At most `maxEntries` are kept; past that the oldest entry goes first.
public final class KakaoVerificationCache: KakaoVerifying {
    public static let defaultMaxEntries = 100_000

    private let inner: any KakaoVerifying
    private let ttl: Int64
    private let clock: UnixClock
    /// A verification that was under way when the user unlinked, or their account changed, is not stored.
    private let unlinkedUsers: UnlinkedKakaoUsers?
    private let state: Mutex<VerificationTable>
    private let flights = SingleFlight<TokenDigest, Result<VerifiedKakaoToken, Problem>>()
    // Resolved once: looking a metric up in the registry per request costs a lock and a hash of its labels.
    private let hits = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", "kakao"), ("result", "hit")])
    private let misses = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", "kakao"), ("result", "miss")])
    private let shared = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", "kakao"), ("result", "shared")])

    /// Where a verification resumes once Kakao has answered: the edge gives the caller's event loop, so that the login
    /// waiting for it is resumed where it runs (docs/benchmarks.md#memory-and-speed-rules-in-the-code); nil: Swift's
    /// global executor.
    private let placement: @Sendable () -> (any TaskExecutor)?

    public init(
        wrapping inner: any KakaoVerifying, ttlSeconds: Int, maxEntries: Int = defaultMaxEntries, clock: UnixClock = .system,
        unlinkedUsers: UnlinkedKakaoUsers? = nil, placement: @escaping @Sendable () -> (any TaskExecutor)? = { nil }
    ) {
        self.placement = placement
        self.inner = inner
        self.ttl = Int64(max(ttlSeconds, 0))
        self.state = Mutex(VerificationTable(maxEntries: maxEntries))
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
        return try await verifyReportingLifetime(token: accessToken, kind: .accessToken) { () async throws(Problem) -> VerifiedKakaoToken in
            try await inner.verifyReportingLifetime(accessToken: accessToken, context: context)
        }
    }

    /// Where a verification runs, which decides what the callers that joined it depend on.
    package enum Shielding: Sendable {
        /// In a task of its own: the verification calls out, and a call is cancelled with the task that makes it, so the
        /// first caller going away (its client hung up) would fail every caller that joined it.
        case ownTask
        /// In the first caller's task: nothing in the verification observes cancellation, so a task of its own would
        /// cost every login one for nothing.
        case callersTask
    }

    /// The cache in front of any verification of a Kakao credential: Kakao ID tokens (docs/api.md#kakao-id-tokens) share
    /// this memory with access tokens, so that the hook's check of an ID token right after its exchange costs no signature.
    /// The kind is part of the key: an ID token's verification is stored before its per-request rules (nonce, unlink
    /// mark) run, so it must never answer a lookup made for an access token.
    package func verifyReportingLifetime(
        token: String, kind: KakaoCredentialKind, shielding: Shielding = .ownTask,
        verifiedBy verify: @escaping @Sendable () async throws(Problem) -> VerifiedKakaoToken
    ) async throws(Problem) -> VerifiedKakaoToken {
        let key = TokenDigest(token, kind: kind)
        if let cached = lookUp(key) {
            hits.increment()
            return cached
        }
        let (outcome, joined) = await flights.run(key) { () async -> Result<VerifiedKakaoToken, Problem> in
            if let cached = lookUp(key) { return .success(cached) }
            let startedAt = clock.now()
            let outcome: Result<VerifiedKakaoToken, Problem>
            switch shielding {
            case .ownTask:
                // Shielded: callers that joined this verification must still get their answer when the first caller goes
                // away and its task is cancelled. Started at once on this thread, and resumed on it once Kakao has
                // answered (`placement`): the request's own thread, the connection's event loop.
                outcome = await Task.immediate(executorPreference: placement()) { () async -> Result<VerifiedKakaoToken, Problem> in
                    await Self.run(verify)
                }.value
            case .callersTask:
                outcome = await Self.run(verify)
            }
            if case .success(let verified) = outcome { store(key, verified, startedAt: startedAt) }
            return outcome
        }
        (joined ? shared : misses).increment()
        return try outcome.get()
    }

    private static func run(
        _ verify: @Sendable () async throws(Problem) -> VerifiedKakaoToken
    ) async -> Result<VerifiedKakaoToken, Problem> {
        do throws(Problem) {
            return .success(try await verify())
        } catch {
            return .failure(error)
        }
    }

    /// Entries currently held, live or expired but not yet dropped (tests, bounds).
    public var count: Int { state.withLock { $0.count } }

    private func lookUp(_ key: TokenDigest) -> VerifiedKakaoToken? {
        let now = clock.now()
        return state.withLock { table -> VerifiedKakaoToken? in
            guard let entry = table.entry(for: key, now: now) else { return nil }
            return VerifiedKakaoToken(user: entry.user, expiresIn: entry.tokenExpiresAt.map { $0 - now })
        }
    }

    /// Failures are never stored: a token Kakao refused a moment ago may be fine after Kakao recovers.
    private func store(_ key: TokenDigest, _ verified: VerifiedKakaoToken, startedAt: Int64) {
        guard ttl > 0 else { return }
        let now = clock.now()
        var trustedUntil = now + ttl
        if let expiresIn = verified.expiresIn { trustedUntil = min(trustedUntil, now + expiresIn) }
        guard trustedUntil > now else { return }
        let tokenExpiresAt = verified.expiresIn.map { now + $0 }
        let unlinkedUsers = self.unlinkedUsers
        state.withLock { state in
            // Asked under the table's lock: a mark recorded before this is seen, and one recorded after it drops the entry
            // (`dropUser` takes the same lock), so a verification that was under way when the person unlinked, or when a
            // security event such as `token-revoked` arrived, is never kept (docs/api.md#kakaos-security-events).
            if let unlinkedUsers, !unlinkedUsers.allowsCaching(verified.user.id, verificationStartedAt: startedAt) { return }
            // Made under the lock: the entry is not `Sendable`, so it cannot be handed into the mutex from outside.
            guard let entry = CachedVerification.make(
                digest: key, user: verified.user, trustedUntil: trustedUntil, tokenExpiresAt: tokenExpiresAt
            ) else { return }
            state.insert(entry, now: now)
        }
    }
}
