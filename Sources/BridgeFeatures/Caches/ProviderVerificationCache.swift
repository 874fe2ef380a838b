import BridgeSupport
import Metrics
import Synchronization
import Upstreams

/// The verification cache of a provider other than Kakao (docs/api.md#providers): the same rules as
/// `KakaoVerificationCache` (keyed by the token's SHA-256, never a failure, at most `kakao.cache_seconds`, concurrent
/// verifications of one token share one call through `SingleFlight`, shielded from the first caller going away, never
/// trusted past the token's own expiry when the provider says it (LINE's `expires_in`, an ID token's `exp`), a
/// verification under way when the person's unlink mark arrives is not kept), over plain entries: Kakao's packed entry
/// is a memory rule for the default provider's crowd (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
package final class ProviderVerificationCache<User: ProviderProfile>: Sendable {
    private let ttl: Int64
    private let clock: UnixClock
    private let unlinkedUsers: UnlinkedKakaoUsers?
    private let state: Mutex<ExpiringTable<CachedProviderUser<User>>>
    private let flights = SingleFlight<TokenDigest, Result<VerifiedProviderToken<User>, Problem>>()
    private let hits = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", User.provider.rawValue), ("result", "hit")])
    private let misses = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", User.provider.rawValue), ("result", "miss")])
    private let shared = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", User.provider.rawValue), ("result", "shared")])

    package init(ttlSeconds: Int, maxEntries: Int = KakaoVerificationCache.defaultMaxEntries, clock: UnixClock, unlinkedUsers: UnlinkedKakaoUsers?) {
        self.ttl = Int64(max(ttlSeconds, 0))
        self.clock = clock
        self.unlinkedUsers = unlinkedUsers
        self.state = Mutex(ExpiringTable(maxEntries: maxEntries))
    }

    /// `kind` is part of the key (docs/api.md#line-id-tokens): a verification of one kind never answers for the other.
    package func verify(
        token: String, kind: KakaoCredentialKind = .accessToken,
        verifiedBy verify: @escaping @Sendable () async throws(Problem) -> VerifiedProviderToken<User>
    ) async throws(Problem) -> User {
        let key = TokenDigest(token, kind: kind)
        if let cached = lookUp(key) {
            hits.increment()
            return cached
        }
        let (outcome, joined) = await flights.run(key) { () async -> Result<VerifiedProviderToken<User>, Problem> in
            if let cached = lookUp(key) { return .success(VerifiedProviderToken(user: cached, expiresIn: nil)) }
            let startedAt = clock.now()
            // In a task of its own: the callers that joined must get their answer when the first one goes away.
            let outcome = await Task { () async -> Result<VerifiedProviderToken<User>, Problem> in
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
        return try outcome.get().user
    }

    /// The person's unlink or change mark (docs/api.md#navers-unlink-callback): their entries go.
    @discardableResult
    package func dropUser(markKey: Int64) -> Int {
        state.withLock { $0.removeAll { $0.user.markKey == markKey } }
    }

    package var count: Int { state.withLock { $0.count } }

    private func lookUp(_ key: TokenDigest) -> User? {
        let now = clock.now()
        return state.withLock { table -> User? in
            guard let entry = table.entry(for: key.prefix, now: now), entry.digest == key else { return nil }
            return entry.user
        }
    }

    private func store(_ key: TokenDigest, _ verified: VerifiedProviderToken<User>, startedAt: Int64) {
        guard ttl > 0 else { return }
        let now = clock.now()
        let user = verified.user
        var trustedUntil = now + ttl
        if let expiresIn = verified.expiresIn { trustedUntil = min(trustedUntil, now + expiresIn) }
        guard trustedUntil > now else { return }
        let unlinkedUsers = self.unlinkedUsers
        state.withLock { table in
            // Under the table's lock, as Kakao's cache asks it: a mark recorded after this drops the entry.
            if let unlinkedUsers, !unlinkedUsers.allowsCaching(user.markKey, verificationStartedAt: startedAt) { return }
            table.insert(CachedProviderUser(digest: key, user: user, expiresAt: trustedUntil), now: now)
        }
    }
}

/// One verified token of `ProviderVerificationCache`: the token's digest (not the token) and its user.
final class CachedProviderUser<User: ProviderProfile>: ExpiringEntry {
    let digest: TokenDigest
    let user: User
    let expiresAt: Int64
    var key: UInt64 { digest.prefix }

    init(digest: TokenDigest, user: User, expiresAt: Int64) {
        self.digest = digest
        self.user = user
        self.expiresAt = expiresAt
    }
}
