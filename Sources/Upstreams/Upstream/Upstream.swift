import BridgeJSON
import BridgeSupport
import CurlHTTP
import Synchronization
import Tracing

/// One external system the service calls, and the one shape of every call to it: a deadline, a bound on calls in flight,
/// the retry policy and the failure table of the calling client (`FailureMap`), the metrics and the access-log timing.
/// The per-upstream clients only build requests and read answers.
package struct Upstream: Sendable {
    package enum Name: String, Sendable {
        case kakao
        case identityToolkit = "identity_toolkit"
        case certificates
        case backend
        /// Google's OAuth 2.0 token endpoint (the service account's `token_uri`).
        case googleToken = "google_token"
        /// The Firebase Auth Admin API (Identity Toolkit's `projects/{project}/accounts…`).
        case adminAPI = "admin_api"
        /// The backend's unlink URL (`backend.unlink_url`).
        case backendUnlink = "backend_unlink"
        case backendEvents = "backend_events"
        /// Kakao's OpenID Connect keys (`kakao.oidc.jwks_url`).
        case kakaoKeys = "kakao_keys"
        /// Google Cloud's metadata server (`firebase.metadata_url`): the account, the project, access tokens.
        case metadata
        /// The IAM Service Account Credentials API's `signBlob` (`firebase.iam_credentials_url`).
        case iamCredentials = "iam_credentials"
        /// Naver's profile API (`naver.api_base_url`).
        case naver
        /// LINE's verify and profile (`line.api_base_url`).
        case line
        /// LINE's ID-token keys (`{line.api_base_url}/oauth2/v2.1/certs`).
        case lineKeys = "line_keys"
        /// Naver's authorization server (`naver.auth_base_url`): the revoke of an account deletion.
        case naverAuth = "naver_auth"
    }

    /// What the HTTP client's failure means, before the client's table turns it into a problem.
    package enum Failure: Error, Sendable {
        /// The deadline passed.
        case timeout
        /// Connection refused, reset, TLS failure, oversized or cut-off answer: the text says which, without secrets.
        case unreachable(String)
        /// `upstream.max_in_flight` calls are already running.
        case overloaded
    }

    /// A call's first answer (or failure) and what is needed to retry it.
    package struct Attempt: Sendable {
        package let request: HTTPRequest
        package let failures: FailureMap
        package let deadline: ContinuousClock.Instant
        package let verdict: FailureMap.Verdict
    }

    package let name: Name
    package let timeout: Duration
    private let http: CurlHTTPClient
    private let gate: InFlightGate
    private let meters: UpstreamMeters

    package init(_ name: Name, http: CurlHTTPClient, timeout: Duration, maxInFlight: Int) {
        self.name = name
        self.http = http
        self.timeout = timeout
        self.gate = InFlightGate(limit: maxInFlight)
        self.meters = UpstreamMeters(upstream: name.rawValue)
    }

    // MARK: Calls

    /// Sends `request` and retries it as `failures` allows, all within one deadline (`upstream.timeout_ms`).
    package func call(_ request: HTTPRequest, _ failures: FailureMap, context: CallContext) async throws(Problem) -> HTTPResponse {
        try await finish(startAll([request], failures, context: context)[0], context: context)
    }

    /// The first attempt of each request, sent together: one suspension for all of them, and their latencies overlap.
    package func startAll(_ requests: [HTTPRequest], _ failures: FailureMap, context: CallContext) async -> [Attempt] {
        var deadline = ContinuousClock.now.advanced(by: timeout)
        if let overall = context.deadline { deadline = min(deadline, overall) }
        let outcomes = await sendAll(requests, deadline: deadline, context: context)
        return zip(requests, outcomes).map { request, outcome in
            Attempt(request: request, failures: failures, deadline: deadline, verdict: failures.verdict(outcome))
        }
    }

    /// The attempt's answer, retrying one request at a time (the rare case) while its policy and deadline allow.
    package func finish(_ attempt: Attempt, context: CallContext) async throws(Problem) -> HTTPResponse {
        var verdict = attempt.verdict
        var retries = 0
        let policy = attempt.failures.retry
        while true {
            switch verdict {
            case .answer(let response):
                return response
            case .fail(let problem, let retryable):
                guard retryable, retries < policy.maxRetries,
                      await policy.pause(before: retries + 1, deadline: attempt.deadline) else { throw problem }
                retries += 1
            }
            verdict = attempt.failures.verdict(await sendAll([attempt.request], deadline: attempt.deadline, context: context)[0])
        }
    }

    // MARK: JSON

    package func postJSON<T: JSONDecodable>(
        _ url: String, body: some JSONWritable, headers: [(String, String)] = [], _ failures: FailureMap, context: CallContext
    ) async throws(Problem) -> T {
        try Self.decode(T.self, try await post(url, body: body, headers: headers, failures, context: context), failures)
    }

    /// A JSON POST whose answer the caller reads itself (the backend's answer goes back to the app as it came).
    package func post(
        _ url: String, body: some JSONWritable, headers: [(String, String)] = [], _ failures: FailureMap, context: CallContext
    ) async throws(Problem) -> HTTPResponse {
        let request = HTTPRequest(
            method: .post, url: url,
            headers: headers + [("Content-Type", "application/json"), ("Accept", "application/json")], body: body.jsonBytes
        )
        return try await call(request, failures, context: context)
    }

    /// An `application/x-www-form-urlencoded` POST (OAuth 2.0 token endpoints take no JSON), read as JSON.
    package func postForm<T: JSONDecodable>(
        _ url: String, fields: [(String, String)], _ failures: FailureMap, context: CallContext
    ) async throws(Problem) -> T {
        let request = HTTPRequest(
            method: .post, url: url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Array(FormCodec.encode(fields).utf8)
        )
        return try Self.decode(T.self, try await call(request, failures, context: context), failures)
    }

    package static func decode<T: JSONDecodable>(_ type: T.Type, _ response: HTTPResponse, _ failures: FailureMap) throws(Problem) -> T {
        do {
            return try T(jsonBytes: response.body)
        } catch {
            throw failures.unreadable
        }
    }

    // MARK: Sending

    /// Sends the requests at once, each bound by the deadline and the in-flight gate, and returns every outcome in order.
    private func sendAll(
        _ requests: [HTTPRequest], deadline: ContinuousClock.Instant, context: CallContext
    ) async -> [Result<HTTPResponse, Failure>] {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .milliseconds(1) else { return requests.map { _ in .failure(.timeout) } }
        var results = [Result<HTTPResponse, Failure>](repeating: .failure(.overloaded), count: requests.count)
        var admitted: [Int] = []
        for index in requests.indices {
            if gate.tryEnter() { admitted.append(index) } else { meters.count(.overloaded) }
        }
        defer { for _ in admitted { gate.leave() } }
        // Tracing on: a child span per attempt, its `traceparent` added to the headers (`UpstreamSpans`). Off, `spans`
        // stays nil: one word in this frame, no allocation.
        let spans: [any Span]?
        let start = ContinuousClock.now
        let completions: [(outcome: Result<HTTPResponse, HTTPClientError>, finishedAt: ContinuousClock.Instant)]
        if admitted.count == 1 {
            // One request: the single-call path costs less than a batch.
            var request = prepared(requests[admitted[0]], remaining, context)
            spans = context.trace.map { [UpstreamSpans.start(name, &request, parent: $0)] }
            let outcome: Result<HTTPResponse, HTTPClientError>
            do {
                outcome = .success(try await http.execute(request))
            } catch {
                outcome = .failure(error)
            }
            completions = [(outcome, ContinuousClock.now)]
        } else {
            var outgoing = admitted.map { prepared(requests[$0], remaining, context) }
            spans = context.trace.map { parent in outgoing.indices.map { UpstreamSpans.start(name, &outgoing[$0], parent: parent) } }
            completions = await http.execute(all: outgoing)
        }
        if let spans { UpstreamSpans.end(spans, completions.map(\.outcome)) }
        for (index, completion) in zip(admitted, completions) {
            results[index] = settle(completion.outcome, from: start, to: completion.finishedAt, context: context)
        }
        return results
    }

    private func prepared(_ request: HTTPRequest, _ remaining: Duration, _ context: CallContext) -> HTTPRequest {
        var request = request
        request.timeout = remaining
        request.headers.append(("X-Request-ID", context.requestID))
        return request
    }

    /// Records the call (access-log timing, count, latency) and maps curl's failure to ours, without secrets.
    private func settle(
        _ outcome: Result<HTTPResponse, HTTPClientError>, from start: ContinuousClock.Instant, to end: ContinuousClock.Instant,
        context: CallContext
    ) -> Result<HTTPResponse, Failure> {
        let milliseconds = start.duration(to: end).milliseconds
        context.timings.add(name.rawValue, from: start, to: end)
        let result: Result<HTTPResponse, Failure>
        let label: UpstreamMeters.CallOutcome
        switch outcome {
        case .success(let response):
            label = response.status >= 500 ? .serverError : response.status >= 400 ? .clientError : .ok
            result = .success(response)
        case .failure(let error):
            switch error.kind {
            case .timeout:
                label = .timeout
                result = .failure(.timeout)
            case .responseTooLarge:
                label = .error
                result = .failure(.unreachable("the answer exceeded the size limit"))
            case .connect:
                label = .error
                result = .failure(.unreachable("could not connect"))
            default:
                label = .error
                result = .failure(.unreachable("the transfer failed"))
            }
        }
        meters.record(label, nanoseconds: Int64(milliseconds * 1_000_000))
        return result
    }
}

/// Back-pressure: at most `limit` calls to one upstream at once. Past it, callers fail fast instead of queueing without bound,
/// and the gate opens again by itself as calls finish.
package final class InFlightGate: Sendable {
    private let limit: Int
    private let count = Atomic<Int>(0)

    package init(limit: Int) { self.limit = max(1, limit) }

    package func tryEnter() -> Bool {
        let after = count.add(1, ordering: .relaxed).newValue
        if after > limit {
            count.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    package func leave() { count.subtract(1, ordering: .relaxed) }

    package var inFlight: Int { count.load(ordering: .relaxed) }
}
