import CurlHTTP
import Foundation

/// One external system the service calls. Every outbound request goes through `send`, which applies the deadline, the
/// in-flight bound and the metrics; the per-upstream clients only build requests and read answers.
public struct Upstream: Sendable {
    public enum Name: String, Sendable {
        case kakao
        case identityToolkit = "identity_toolkit"
        case certificates
        case backend
    }

    public enum Failure: Error, Sendable {
        /// The deadline passed.
        case timeout
        /// Connection refused, reset, TLS failure, oversized or cut-off answer: `detail` says which, without secrets.
        case unreachable(String)
        /// `upstream.max_in_flight` calls are already running.
        case overloaded
    }

    let name: Name
    let http: CurlHTTPClient
    let timeout: Duration
    private let gate: InFlightGate
    private let meters: UpstreamMeters

    init(_ name: Name, http: CurlHTTPClient, timeout: Duration, maxInFlight: Int) {
        self.name = name
        self.http = http
        self.timeout = timeout
        self.gate = InFlightGate(limit: maxInFlight)
        self.meters = UpstreamMeters(upstream: name.rawValue)
    }

    /// Sends one request that must finish by `deadline` (the caller's budget for this upstream, retries included).
    func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant, context: CallContext) async throws(Failure) -> HTTPResponse {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .milliseconds(1) else { throw .timeout }
        guard gate.tryEnter() else {
            meters.count(.overloaded)
            throw .overloaded
        }
        defer { gate.leave() }
        let start = ContinuousClock.now
        let outcome: Result<HTTPResponse, HTTPClientError>
        do {
            outcome = .success(try await http.execute(prepared(request, remaining, context)))
        } catch {
            outcome = .failure(error)
        }
        return try settle(outcome, elapsed: ContinuousClock.now - start, context: context).get()
    }

    /// Sends the requests at once, each bound as by `send`, and returns every outcome in order: for a caller that needs
    /// all the answers, one suspension instead of a child task per request.
    func sendAll(_ requests: [HTTPRequest], deadline: ContinuousClock.Instant, context: CallContext) async -> [Result<HTTPResponse, Failure>] {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .milliseconds(1) else { return requests.map { _ in .failure(.timeout) } }
        var results = [Result<HTTPResponse, Failure>](repeating: .failure(.overloaded), count: requests.count)
        var admitted: [Int] = []
        for index in requests.indices {
            if gate.tryEnter() { admitted.append(index) } else { meters.count(.overloaded) }
        }
        defer { for _ in admitted { gate.leave() } }
        let start = ContinuousClock.now
        let completions = await http.execute(all: admitted.map { prepared(requests[$0], remaining, context) })
        for (index, completion) in zip(admitted, completions) {
            results[index] = settle(completion.outcome, elapsed: completion.finishedAt - start, context: context)
        }
        return results
    }

    func deadline() -> ContinuousClock.Instant { ContinuousClock.now.advanced(by: timeout) }

    private func prepared(_ request: HTTPRequest, _ remaining: Duration, _ context: CallContext) -> HTTPRequest {
        var request = request
        request.timeout = remaining
        request.headers.append(("X-Request-ID", context.requestID))
        return request
    }

    /// Records the call (access-log timing, count, latency) and maps curl's failure to ours, without secrets.
    private func settle(
        _ outcome: Result<HTTPResponse, HTTPClientError>, elapsed: Duration, context: CallContext
    ) -> Result<HTTPResponse, Failure> {
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        context.timings.add(name.rawValue, milliseconds: milliseconds)
        let result: Result<HTTPResponse, Failure>
        let label: UpstreamMeters.Outcome
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
