import BridgeSupport
import Logging
import Synchronization
import Tracing

/// What an upstream call needs to know about the request it serves: the id to pass on, and where to note its timing
/// for the access log.
public struct CallContext: Sendable {
    public var requestID: String
    public var timings: UpstreamTimings
    /// A deadline for every call of the request together (the unlink webhook's); each call still has its own
    /// `upstream.timeout_ms` and ends at whichever comes first.
    public var deadline: ContinuousClock.Instant?
    /// The request span's context when tracing is on (docs/operations.md#tracing): each call is then a child span and
    /// sends its `traceparent`. `nil` when tracing is off, and for calls no request made (reload, the unlink worker).
    public var trace: ServiceContext?

    public init(
        requestID: String, timings: UpstreamTimings = UpstreamTimings(), deadline: ContinuousClock.Instant? = nil,
        trace: ServiceContext? = nil
    ) {
        self.requestID = requestID
        self.timings = timings
        self.deadline = deadline
        self.trace = trace
    }
}

extension CallContext {
    /// What a feature's log line about this request carries, as the request's own lines do: its id and, with tracing on,
    /// its trace and span ids (docs/operations.md#tracing).
    public var logMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = ["request_id": .string(requestID)]
        if let trace, let ids = RequestTracing.identifiers(of: trace) {
            metadata["trace_id"] = .string(ids.traceID)
            metadata["span_id"] = .string(ids.spanID)
        }
        return metadata
    }
}

/// The wall time spent waiting on each upstream during one request, in milliseconds: the union of its calls' intervals
/// (docs/operations.md#reading-the-logs). Calls sent together (Kakao's token info and profile) overlap and count once;
/// calls one after the other (a retry) add up. So an upstream never shows more time than the request took.
public final class UpstreamTimings: Sendable {
    private let calls = Mutex<[String: [Range<ContinuousClock.Instant>]]>([:])

    public init() {}

    package func add(_ upstream: String, from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) {
        guard start <= end else { return }
        calls.withLock { $0[upstream, default: []].append(start..<end) }
    }

    public var snapshot: [String: Double] {
        calls.withLock { $0 }.mapValues(Self.wallMilliseconds)
    }

    static func wallMilliseconds(_ intervals: [Range<ContinuousClock.Instant>]) -> Double {
        var total = Duration.zero
        var current: Range<ContinuousClock.Instant>?
        for interval in intervals.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let open = current, interval.lowerBound <= open.upperBound {
                current = open.lowerBound..<max(open.upperBound, interval.upperBound)
            } else {
                if let open = current { total += open.lowerBound.duration(to: open.upperBound) }
                current = interval
            }
        }
        if let open = current { total += open.lowerBound.duration(to: open.upperBound) }
        return total.milliseconds
    }
}
