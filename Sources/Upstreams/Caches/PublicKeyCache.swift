import BridgeSupport
import Logging
import Metrics
import OpenSSLCrypto
import Synchronization

/// A key set fetched from an upstream: `kid` to public key, and how long the answer may be trusted. RSA keys for
/// Google's certificates and Kakao's JWKS (`PublicKeySet`), P-256 keys for LINE's (`LineKeySet`).
public struct KeySet<Key: Sendable>: Sendable {
    public var keys: [String: Key]
    /// Seconds, already reduced by the answer's `Age`; `nil` when the answer did not say.
    public var maxAge: Int64?

    public init(keys: [String: Key], maxAge: Int64?) {
        self.keys = keys
        self.maxAge = maxAge
    }
}

public typealias PublicKeySet = KeySet<RSAPublicKey>
/// LINE's ID-token keys (docs/api.md#line-id-tokens): ES256, P-256.
public typealias LineKeySet = KeySet<P256PublicKey>
/// The one key cache, over RSA keys: what every RS256 verifier of the service holds.
package typealias PublicKeyCache = KeyCache<RSAPublicKey>

/// Fetches an RSA key set: Google's securetoken certificates, Kakao's JWKS. The real one asks the upstream; tests pass
/// in-memory fakes.
public protocol PublicKeySetFetching: Sendable {
    func fetchKeys(context: CallContext) async throws(Problem) -> PublicKeySet
}

/// Caches a key set for its `max-age` (docs/custom-token.md#googles-certificates). An unknown `kid` refetches at most once a
/// minute, so tokens with made-up `kid`s cannot turn the service into a load generator against the key's owner. A known
/// `kid` never waits for a fetch: past `max-age` its key still answers while a refetch runs in the background
/// (stale-while-revalidate), and keeps answering while refetches fail (keys rotate with overlap), but not forever: a day
/// past `max-age` the keys are dropped. Concurrent misses share one fetch (`SingleFlight`), which runs in a task of its
/// own: a caller that gives up does not cancel it.
package final class KeyCache<Key: Sendable>: Sendable {
    package struct Policy: Sendable {
        /// Without `max-age`, the answer is trusted this long.
        package var defaultMaxAge: Int64 = 60
        /// A day bounds a wild value (Google sends about six hours).
        package var maxMaxAge: Int64 = 86_400
        /// `max-age=0` (or a tiny value) from a faulty endpoint must not mean a fetch per request: the keys are kept at
        /// least as long as an unknown `kid` waits to refetch.
        package var minMaxAge: Int64 = 60
        /// An unknown `kid` does not refetch sooner than this after a successful fetch.
        package var unknownKidRefetchInterval: Int64 = 60
        /// After a failed fetch with keys cached, requests use the stale keys for this long without asking again.
        package var failureBackoff: Int64 = 5
        /// How long past `max-age` stale keys may still serve while refetches fail.
        package var maxStale: Int64 = 86_400

        package init(
            defaultMaxAge: Int64 = 60, maxMaxAge: Int64 = 86_400, minMaxAge: Int64 = 60, unknownKidRefetchInterval: Int64 = 60,
            failureBackoff: Int64 = 5, maxStale: Int64 = 86_400
        ) {
            self.defaultMaxAge = defaultMaxAge
            self.maxMaxAge = maxMaxAge
            self.minMaxAge = minMaxAge
            self.unknownKidRefetchInterval = unknownKidRefetchInterval
            self.failureBackoff = failureBackoff
            self.maxStale = maxStale
        }
    }

    private struct State {
        package var keys: [String: Key] = [:]
        package var expiresAt: Int64 = .min
        package var lastSuccess: Int64?
        package var lastFailure: Int64?
    }

    private enum Plan {
        case cached(Key?)
        /// Serve it, and refresh the set in the background.
        case stale(Key)
        case fetch
    }

    private let source: @Sendable (CallContext) async throws(Problem) -> KeySet<Key>
    /// Names the source in details ("Google's certificate endpoint").
    private let sourceName: String
    private let unavailable: @Sendable (String) -> Problem
    private let policy: Policy
    private let clock: UnixClock
    private let logger: Logger
    private let state = Mutex(State())
    private let flights = SingleFlight<Int, Result<Void, Problem>>()
    private let ready = Atomic<Bool>(false)
    private let hits: Counter
    private let misses: Counter

    package init(
        fetch: @escaping @Sendable (CallContext) async throws(Problem) -> KeySet<Key>, sourceName: String,
        unavailable: @escaping @Sendable (String) -> Problem, metricLabel: String, policy: Policy = Policy(),
        clock: UnixClock = .system, logger: Logger = Logger(label: "kakao-bridge.keys")
    ) {
        self.source = fetch
        self.sourceName = sourceName
        self.unavailable = unavailable
        self.policy = policy
        self.clock = clock
        self.logger = logger
        hits = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", metricLabel), ("result", "hit")])
        misses = Counter(label: MetricName.cache.rawValue, dimensions: [("cache", metricLabel), ("result", "miss")])
    }

    /// Fetched successfully at least once (readiness).
    package var isReady: Bool { ready.load(ordering: .relaxed) }

    /// The key for `kid`; `nil` when no current key has that `kid`.
    /// - Throws: the source's problem only when no keys are cached at all.
    package func key(for kid: String, context: CallContext) async throws(Problem) -> Key? {
        let now = clock.now()
        let fetching = flights.isRunning(0)
        let plan = state.withLock { state -> Plan in
            if !state.keys.isEmpty, now >= state.expiresAt + policy.maxStale { state.keys = [:] }
            let fresh = now < state.expiresAt
            let failedRecently = state.lastFailure.map { now - $0 < policy.failureBackoff } ?? false
            if let key = state.keys[kid] { return fresh || fetching || failedRecently ? .cached(key) : .stale(key) }
            if fresh, let last = state.lastSuccess, now - last < policy.unknownKidRefetchInterval { return .cached(nil) }
            if !state.keys.isEmpty, !fetching, failedRecently { return .cached(nil) }
            return .fetch
        }
        switch plan {
        case .cached(let key):
            hits.increment()
            return key
        case .stale(let key):
            hits.increment()
            Task { _ = await self.fetchShared(context: CallContext(requestID: context.requestID)) }
            return key
        case .fetch:
            break
        }
        misses.increment()
        let outcome = await fetchShared(context: context)
        let key = state.withLock { state -> Key?? in state.keys.isEmpty ? .none : .some(state.keys[kid]) }
        switch (outcome, key) {
        case (_, .some(let key)): return key
        case (.failure(let problem), .none): throw problem
        case (.success, .none): throw unavailable("\(sourceName) returned no keys.")
        }
    }

    /// One fetch (shared with any already running); `true` when keys are now cached.
    @discardableResult
    package func prefetch() async -> Bool {
        if case .failure(let problem) = await fetchShared(context: CallContext(requestID: "prefetch")) {
            logger.warning("fetching keys failed", metadata: ["source": "\(sourceName)", "detail": "\(problem.detail)"])
            return false
        }
        return true
    }

    private func fetchShared(context: CallContext) async -> Result<Void, Problem> {
        await flights.run(0) {
            // Shielded: the callers waiting on this fetch must not lose it because the first of them went away.
            await Task { await self.fetch(context: context) }.value
        }.value
    }

    private func fetch(context: CallContext) async -> Result<Void, Problem> {
        let outcome: Result<KeySet<Key>, Problem>
        do throws(Problem) {
            let set = try await source(context)
            outcome = set.keys.isEmpty ? .failure(unavailable("\(sourceName) returned no usable key.")) : .success(set)
        } catch {
            outcome = .failure(error)
        }
        let now = clock.now()
        return state.withLock { state in
            switch outcome {
            case .success(let set):
                state.keys = set.keys
                state.expiresAt = now + max(policy.minMaxAge, min(set.maxAge ?? policy.defaultMaxAge, policy.maxMaxAge))
                state.lastSuccess = now
                state.lastFailure = nil
                ready.store(true, ordering: .relaxed)
                return .success(())
            case .failure(let problem):
                state.lastFailure = now
                return .failure(problem)
            }
        }
    }
}

extension KeyCache where Key == RSAPublicKey {
    package convenience init(
        source: any PublicKeySetFetching, sourceName: String, unavailable: @escaping @Sendable (String) -> Problem,
        metricLabel: String, policy: Policy = Policy(), clock: UnixClock = .system,
        logger: Logger = Logger(label: "kakao-bridge.keys")
    ) {
        self.init(
            fetch: { (context: CallContext) async throws(Problem) -> PublicKeySet in try await source.fetchKeys(context: context) },
            sourceName: sourceName,
            unavailable: unavailable, metricLabel: metricLabel, policy: policy, clock: clock, logger: logger
        )
    }

    /// Google's securetoken certificates, the keys of Firebase ID tokens.
    package static func googleCertificates(
        _ source: any PublicKeySetFetching, clock: UnixClock = .system, logger: Logger = Logger(label: "kakao-bridge.keys")
    ) -> PublicKeyCache {
        PublicKeyCache(
            source: source, sourceName: "Google's certificate endpoint", unavailable: Problem.firebaseUnavailable,
            metricLabel: "certificates", clock: clock, logger: logger
        )
    }
}

extension KeyCache where Key == RSAPublicKey {
    /// Kakao's OpenID Connect keys (docs/api.md#kakao-id-tokens): the same single flight, throttled refetch of unknown `kid`s
    /// and stale keys while refetches fail; an answer without `max-age` is trusted for an hour.
    package static func kakaoKeys(
        _ source: any PublicKeySetFetching, clock: UnixClock = .system, logger: Logger = Logger(label: "kakao-bridge.keys")
    ) -> PublicKeyCache {
        var policy = Policy()
        policy.defaultMaxAge = 3600
        return PublicKeyCache(
            source: source, sourceName: "Kakao's JWKS endpoint", unavailable: Problem.kakaoUnavailable,
            metricLabel: "kakao_keys", policy: policy, clock: clock, logger: logger
        )
    }
}

/// LINE's ID-token keys (`{line.api_base_url}/oauth2/v2.1/certs`, docs/api.md#line-id-tokens).
public protocol LineKeySetFetching: Sendable {
    func fetchKeys(context: CallContext) async throws(Problem) -> LineKeySet
}

extension KeyCache where Key == P256PublicKey {
    /// LINE's keys, cached as Kakao's are (docs/api.md#line-id-tokens): an answer without `max-age` is trusted for an hour.
    package static func lineKeys(
        _ source: any LineKeySetFetching, clock: UnixClock = .system, logger: Logger = Logger(label: "kakao-bridge.keys")
    ) -> KeyCache<P256PublicKey> {
        var policy = Policy()
        policy.defaultMaxAge = 3600
        return KeyCache(
            fetch: { (context: CallContext) async throws(Problem) -> LineKeySet in try await source.fetchKeys(context: context) },
            sourceName: "LINE's JWKS endpoint",
            unavailable: Problem.lineUnavailable, metricLabel: "line_keys", policy: policy, clock: clock, logger: logger
        )
    }
}
