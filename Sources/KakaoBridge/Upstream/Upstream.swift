import CurlHTTP
import Foundation
import Metrics

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

    init(_ name: Name, http: CurlHTTPClient, timeout: Duration, maxInFlight: Int) {
        self.name = name
        self.http = http
        self.timeout = timeout
        self.gate = InFlightGate(limit: maxInFlight)
    }

    /// Sends one request that must finish by `deadline` (the caller's budget for this upstream, retries included).
    func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant, context: CallContext) async throws(Failure) -> HTTPResponse {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .milliseconds(1) else { throw .timeout }
        guard gate.tryEnter() else {
            Counter(label: "kakao_bridge_upstream_calls_total", dimensions: [("upstream", name.rawValue), ("outcome", "overloaded")])
                .increment()
            throw .overloaded
        }
        defer { gate.leave() }

        var request = request
        request.timeout = remaining
        request.headers.append(("X-Request-ID", context.requestID))
        let start = ContinuousClock.now
        var outcome = "error"
        defer {
            let elapsed = ContinuousClock.now - start
            let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
            context.timings.add(name.rawValue, milliseconds: milliseconds)
            Counter(label: "kakao_bridge_upstream_calls_total", dimensions: [("upstream", name.rawValue), ("outcome", outcome)])
                .increment()
            Timer(label: "kakao_bridge_upstream_duration_seconds", dimensions: [("upstream", name.rawValue), ("outcome", outcome)])
                .recordNanoseconds(Int64(milliseconds * 1_000_000))
        }
        do {
            let response = try await http.execute(request)
            outcome = response.status >= 500 ? "5xx" : response.status >= 400 ? "4xx" : "ok"
            return response
        } catch {
            switch error.kind {
            case .timeout:
                outcome = "timeout"
                throw .timeout
            case .responseTooLarge:
                outcome = "error"
                throw .unreachable("the answer exceeded the size limit")
            case .connect:
                outcome = "error"
                throw .unreachable("could not connect")
            default:
                outcome = "error"
                throw .unreachable("the transfer failed")
            }
        }
    }

    func deadline() -> ContinuousClock.Instant { ContinuousClock.now.advanced(by: timeout) }
}
