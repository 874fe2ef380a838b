import BridgeSupport
import Metrics
import Synchronization

/// The bearer credential of the Admin API (and, keyless, of IAM `signBlob`): an access token from Google's token endpoint
/// or, with `firebase.signer: iam`, from the metadata server (docs/api.md#keyless-signing-on-google-cloud), kept until 5
/// minutes before it expires (as Google's auth libraries refresh; `keepSeconds` for short lifetimes), fetched by one caller at a time while the others wait for that fetch.
/// A failed fetch is not kept: the next call tries again. The token is never logged.
///
/// With the Auth Emulator there is no fetch at all: the Admin SDKs send `Bearer owner` (docs/api.md#the-auth-emulator).
package final class AccessTokenCache: Sendable {
    /// Refresh this long before Google's expiry, so a token is never sent in its last minutes.
    package static let refreshMarginSeconds: Int64 = 300
    /// However short a lifetime Google (or something in its place) claims, a token is kept at least this long, so that a
    /// faulty `expires_in` does not turn every login into a fetch; but never past its expiry (docs/api.md#credentials).
    package static let minimumKeepSeconds: Int64 = 30

    /// How long a token of this lifetime is used before the next fetch: 5 minutes short of its expiry, or half its
    /// lifetime when that is longer, at least `minimumKeepSeconds`, and never longer than the token lives.
    package static func keepSeconds(expiresIn: Int64) -> Int64 {
        min(max(expiresIn - refreshMarginSeconds, expiresIn / 2, minimumKeepSeconds), max(expiresIn, 0))
    }

    private enum Source: Sendable {
        case google(any GoogleAccessTokenFetching, ServiceAccount)
        /// Keyless: the metadata server hands out the runtime account's tokens.
        case metadata(any MetadataServerCalling)
        case emulator
    }

    private struct Held {
        package var token: String
        package var refreshAt: Int64
    }

    private let source: Source
    private let clock: UnixClock
    private let held = Mutex<Held?>(nil)
    private let flights = SingleFlight<Int, Result<String, Problem>>()
    private let fetched = Counter(label: MetricName.accessTokenFetches.rawValue, dimensions: [("outcome", "ok")])
    private let failed = Counter(label: MetricName.accessTokenFetches.rawValue, dimensions: [("outcome", "failed")])

    package init(fetching fetcher: any GoogleAccessTokenFetching, account: ServiceAccount, clock: UnixClock) {
        self.source = .google(fetcher, account)
        self.clock = clock
    }

    /// `firebase.signer: iam`.
    package init(metadata: any MetadataServerCalling, clock: UnixClock) {
        self.source = .metadata(metadata)
        self.clock = clock
    }

    private init(emulatorClock clock: UnixClock) {
        self.source = .emulator
        self.clock = clock
    }

    /// `Bearer owner`, as the Admin SDKs authorise against the Auth Emulator.
    package static func emulator(clock: UnixClock = .system) -> AccessTokenCache { AccessTokenCache(emulatorClock: clock) }

    /// The value of `Authorization: Bearer …` for an Admin API (or `signBlob`) call.
    package func bearer(context: CallContext) async throws(Problem) -> String {
        if case .emulator = source { return "owner" }
        if let token = current() { return token }
        let (outcome, _) = await flights.run(0) { () async -> Result<String, Problem> in
            if let token = current() { return .success(token) }
            do throws(Problem) {
                let fresh = try await fetch(context: context)
                fetched.increment()
                let now = clock.now()
                held.withLock { $0 = Held(token: fresh.token, refreshAt: now + Self.keepSeconds(expiresIn: fresh.expiresIn)) }
                return .success(fresh.token)
            } catch {
                failed.increment()
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    private func fetch(context: CallContext) async throws(Problem) -> GoogleAccessToken {
        switch source {
        case .google(let fetcher, let account): try await fetcher.fetchAccessToken(for: account, context: context)
        case .metadata(let metadata): try await metadata.accessToken(context: context)
        case .emulator: GoogleAccessToken(token: "owner", expiresIn: .max)
        }
    }

    private func current() -> String? {
        let now = clock.now()
        return held.withLock { held in
            guard let token = held, now < token.refreshAt else { return nil }
            return token.token
        }
    }
}
