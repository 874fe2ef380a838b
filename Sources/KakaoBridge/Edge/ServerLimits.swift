import BridgeJSON
import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Upstreams

/// Connection-level limits of the public listener: how long a connection may sit idle or dribble its request head, and
/// how large a request head may be. Body limits live with the routes that read bodies (`RequestLimits`).
enum ServerLimits {
    /// Longer than nginx's upstream keep-alive (60 s), so the proxy never reuses a connection this side just closed.
    /// The timer only restarts on whole HTTP parts, so a client that trickles its head byte by byte is cut off too.
    /// A task-local so that tests can shorten it for the application they build, and only for that one.
    @TaskLocal static var idleTimeout: TimeAmount = .seconds(75)

    /// Far above any honest request (a bearer token is at most `RequestLimits.maxTokenBytes`); heads above these are
    /// refused with a 400 problem body before they reach a route.
    static let maxHeaderFieldSize = 16 << 10
    static let maxHeaderListSize = 32 << 10
    static let maxHeaderFieldCount = 100

    static func http1() -> HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            additionalChannelHandlers: [ParseErrorProblemHandler()],
            idleTimeout: idleTimeout,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: maxHeaderFieldSize, maxHeaderListSize: maxHeaderListSize,
                maxHeaderFieldCount: maxHeaderFieldCount
            )
        )
    }
}

/// Hummingbird answers a request it cannot parse (oversized head, broken framing) with a bare `400` and an empty body,
/// below the router, where `EdgeMiddleware` never sees it. This handler sits just above the HTTP codec, notices the
/// parser error on its way in, and turns that one bare answer into the problem body of docs/errors.md#problem-body (nothing else is ever
/// returned for a failure).
final class ParseErrorProblemHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var parseFailed = false
    private var pendingBody: ByteBuffer?

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { parseFailed = true }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard parseFailed else {
            context.write(data, promise: promise)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status == .badRequest:
            let requestID = RequestIDs.generate()
            let problem = Problem.invalidRequest("The request could not be parsed: malformed, or its headers are too large.")
            let bytes = ProblemBody(problem, requestID: requestID).jsonBytes
            for field in ProblemAnswer.headers(for: problem, requestID: requestID, contentLength: bytes.count) {
                head.headerFields[field.name] = field.value
            }
            pendingBody = ByteBuffer(bytes: bytes)
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where pendingBody != nil:
            context.write(wrapOutboundOut(.body(pendingBody!)), promise: nil)
            pendingBody = nil
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }
}
