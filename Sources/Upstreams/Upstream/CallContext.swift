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

/// Milliseconds spent per upstream during one request (several calls to one upstream add up).
public final class UpstreamTimings: Sendable {
    private let entries = Mutex<[String: Double]>([:])

    public init() {}

    package func add(_ upstream: String, milliseconds: Double) {
        entries.withLock { $0[upstream, default: 0] += milliseconds }
    }

    public var snapshot: [String: Double] { entries.withLock { $0 } }
}
