import CurlHTTP
import Logging
import Metrics
import OpenSSLCrypto
import Synchronization

/// Google's securetoken certificates (`{kid: X.509 PEM}`), the keys that sign Firebase ID tokens.
///
/// Cached for the answer's `Cache-Control: max-age`. An unknown `kid` refetches at most once a minute, so tokens with
/// made-up `kid`s cannot turn the service into a load generator against Google. While a refetch fails the old keys keep
/// serving (Google rotates with overlap, so yesterday's keys still verify most tokens). Concurrent misses share one fetch.
final class SecureTokenCertificates: Sendable {
    /// An unknown `kid` does not refetch sooner than this after a successful fetch (contract §2).
    static let unknownKidRefetchInterval: Int64 = 60
    /// Without `max-age`, the answer is trusted this long.
    static let defaultMaxAge: Int64 = 60
    /// Google sends ~6 h; a day bounds a wild value.
    static let maxMaxAge: Int64 = 86_400
    /// After a failed fetch with keys cached, requests use the stale keys for this long without asking again.
    static let failureBackoff: Int64 = 5

    private struct State {
        var keys: [String: RSAPublicKey] = [:]
        var expiresAt: Int64 = .min
        var lastSuccess: Int64?
        var lastFailure: Int64?
        var inFlight: Task<Result<Void, Problem>, Never>?
    }

    private enum Plan {
        case cached(RSAPublicKey?)
        case wait(Task<Result<Void, Problem>, Never>)
    }

    private let upstream: Upstream
    private let url: String
    private let clock: UnixClock
    private let logger: Logger
    private let state = Mutex(State())
    private let ready = Atomic<Bool>(false)

    init(upstream: Upstream, url: String, clock: UnixClock = .system, logger: Logger = Logger(label: "kakao-bridge.certificates")) {
        self.upstream = upstream
        self.url = url
        self.clock = clock
        self.logger = logger
    }

    /// Fetched successfully at least once (readiness).
    var isReady: Bool { ready.load(ordering: .relaxed) }

    /// The key for `kid`; `nil` when no current certificate has that `kid`.
    /// - Throws: `firebase_unavailable` or `upstream_timeout` only when no certificates are cached at all.
    func key(for kid: String, context: CallContext) async throws(Problem) -> RSAPublicKey? {
        let plan = state.withLock { state -> Plan in
            let now = clock.now()
            let fresh = now < state.expiresAt
            if fresh, let key = state.keys[kid] { return .cached(key) }
            if fresh, let last = state.lastSuccess, now - last < Self.unknownKidRefetchInterval { return .cached(nil) }
            if !state.keys.isEmpty, state.inFlight == nil, let failed = state.lastFailure, now - failed < Self.failureBackoff {
                return .cached(state.keys[kid])
            }
            return .wait(startFetch(&state, context: context))
        }
        switch plan {
        case .cached(let key):
            Self.count(hit: true)
            return key
        case .wait(let task):
            Self.count(hit: false)
            let outcome = await task.value
            let key = state.withLock { state -> RSAPublicKey?? in
                state.keys.isEmpty ? .none : .some(state.keys[kid])
            }
            switch (outcome, key) {
            case (_, .some(let key)): return key
            case (.failure(let problem), .none): throw problem
            case (.success, .none): throw Problem.firebaseUnavailable("Google's certificate endpoint returned no certificates.")
            }
        }
    }

    /// One fetch (shared with any already running); `true` when certificates are now cached.
    @discardableResult
    func prefetch() async -> Bool {
        let task = state.withLock { state in
            startFetch(&state, context: CallContext(requestID: "startup-prefetch"))
        }
        if case .failure(let problem) = await task.value {
            logger.warning("fetching Google's certificates failed", metadata: ["detail": "\(problem.detail)"])
            return false
        }
        return true
    }

    /// Joins the running fetch or starts one; called under the lock so that two misses can never start two fetches.
    private func startFetch(_ state: inout State, context: CallContext) -> Task<Result<Void, Problem>, Never> {
        if let running = state.inFlight { return running }
        // Unstructured on purpose: a caller that gives up must not cancel the fetch the others wait on.
        let task = Task { await self.fetch(context: context) }
        state.inFlight = task
        return task
    }

    private func fetch(context: CallContext) async -> Result<Void, Problem> {
        let outcome: Result<(keys: [String: RSAPublicKey], maxAge: Int64), Problem>
        do {
            let request = HTTPRequest(method: .get, url: url, headers: [("Accept", "application/json")])
            let response = try await upstream.send(request, deadline: upstream.deadline(), context: context)
            outcome = Self.parse(response)
        } catch {
            outcome = .failure(Self.problem(for: error))
        }
        return state.withLock { state in
            let now = clock.now()
            state.inFlight = nil
            switch outcome {
            case .success(let answer):
                state.keys = answer.keys
                state.expiresAt = now + answer.maxAge
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

    // MARK: Answers

    static func parse(_ response: HTTPResponse) -> Result<(keys: [String: RSAPublicKey], maxAge: Int64), Problem> {
        guard (200..<300).contains(response.status) else {
            return .failure(.firebaseUnavailable("Google's certificate endpoint answered HTTP \(response.status)."))
        }
        guard let json = try? JSONCoding.decode(JSONValue.self, from: response.body), case .object(let members) = json else {
            return .failure(.firebaseUnavailable("Google's certificate endpoint answered something other than a JSON object."))
        }
        var keys: [String: RSAPublicKey] = [:]
        for (kid, value) in members {
            guard let pem = value.stringValue, let key = try? RSAPublicKey(certificatePEM: pem) else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else {
            return .failure(.firebaseUnavailable("Google's certificate endpoint returned no usable certificate."))
        }
        let age = response.header("age").flatMap { Int64($0.trimmingSpaces()) }.map { max(0, $0) } ?? 0
        let maxAge = maxAge(cacheControl: response.header("cache-control")) ?? defaultMaxAge
        return .success((keys, max(0, min(maxAge, maxMaxAge) - age)))
    }

    /// `max-age` from a `Cache-Control` value (`public, max-age=19204, must-revalidate, no-transform`); case-insensitive,
    /// tolerant of spaces and quotes. `nil` when absent or not a non-negative integer.
    static func maxAge(cacheControl: String?) -> Int64? {
        guard let cacheControl else { return nil }
        var result: Int64?
        for directive in cacheControl.split(separator: ",") {
            // Keep empty pieces: a directive such as "=" must parse as an unnamed one, not index past an empty array
            // (found by FuzzGoogleReplies).
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).trimmingSpaces().lowercased()
            guard name == "max-age", parts.count == 2 else { continue }
            var value = String(parts[1]).trimmingSpaces()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if let seconds = Int64(value), seconds >= 0 { result = seconds }
        }
        return result
    }

    static func problem(for failure: Upstream.Failure) -> Problem {
        switch failure {
        case .timeout: .upstreamTimeout("Google's certificate endpoint")
        case .overloaded: .firebaseUnavailable("Too many calls to Google's certificate endpoint are in flight.")
        case .unreachable(let why): .firebaseUnavailable("Google's certificate endpoint is unreachable: \(why).")
        }
    }

    private static func count(hit: Bool) {
        Counter(label: "kakao_bridge_cache_total", dimensions: [("cache", "certificates"), ("result", hit ? "hit" : "miss")])
            .increment()
    }
}
