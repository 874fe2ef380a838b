import Hummingbird
import NIOCore
import Upstreams

/// Per-request state shared by `EdgeMiddleware` and the controllers.
public struct BridgeRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `RequestIDs` before anything else runs.
    public var requestID: String = ""
    /// The socket peer; `ClientAddress` replaces it with the forwarded client when the peer is a trusted proxy.
    public var clientAddress: String
    public let socketPeer: String
    public var timings = UpstreamTimings()
    /// How long a login waited for its turn before the router saw it (`RequestAdmission`); zero for other requests.
    public var admissionWait: Duration = .zero
    /// The route the router matched (nil: none), set once by `EdgeMiddleware` as the request arrives; the rate limit,
    /// CORS, the span, the metrics and the access line read it here instead of looking the path up again.
    var route: Route?
    /// The request's span, set by `EdgeMiddleware` only when tracing is on (docs/operations.md#tracing).
    public var trace: RequestTrace?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        let peer = source.channel.remoteAddress?.ipAddress ?? "unknown"
        self.socketPeer = peer
        self.clientAddress = peer
    }

    public var callContext: CallContext { CallContext(requestID: requestID, timings: timings, trace: trace?.context) }
}
