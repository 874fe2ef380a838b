import Synchronization

/// What an upstream call needs to know about the request it serves: the id to pass on, and where to note its timing
/// for the access log.
public struct CallContext: Sendable {
    public var requestID: String
    public var timings: UpstreamTimings

    public init(requestID: String, timings: UpstreamTimings = UpstreamTimings()) {
        self.requestID = requestID
        self.timings = timings
    }
}

/// Milliseconds spent per upstream during one request (several calls to one upstream add up).
public final class UpstreamTimings: Sendable {
    private let entries = Mutex<[String: Double]>([:])

    public init() {}

    func add(_ upstream: String, milliseconds: Double) {
        entries.withLock { $0[upstream, default: 0] += milliseconds }
    }

    public var snapshot: [String: Double] { entries.withLock { $0 } }
}
