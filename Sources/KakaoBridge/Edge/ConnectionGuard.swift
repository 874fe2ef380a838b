import BridgeFeatures
import BridgeJSON
import BridgeSupport
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Upstreams

/// First in the pipeline: counts the connection (in all and per client address), closes it if it stays silent after
/// opening, and times each request from its first byte.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private let connections: ConnectionCount
    private let requestTimeout: TimeAmount
    private let firstRequestTimeout: TimeAmount
    private var counted = false
    /// The peer's address when it was counted against `server.max_connections_per_client` (`nil`: exempt or unknown).
    private var countedClient: String?
    private var refused = false
    /// Whether any byte has arrived since the connection opened.
    private var spoke = false
    /// When the request being read began (its first byte); `nil` between requests.
    private var requestStarted: NIODeadline?
    /// One timer per connection, re-armed when it fires: scheduling and cancelling a timer for every request would cost
    /// every request an allocation and two timer-heap operations.
    private var check: Scheduled<Void>?
    /// When `check` fires.
    private var checkDue: NIODeadline?

    init(connections: ConnectionCount, requestTimeout: TimeAmount, firstRequestTimeout: TimeAmount) {
        self.connections = connections
        self.requestTimeout = requestTimeout
        self.firstRequestTimeout = firstRequestTimeout
    }

    /// The rest of the pipeline sees a refused connection open and close with no request in between, so that nothing
    /// above waits for it.
    func channelActive(context: ChannelHandlerContext) {
        counted = true
        context.fireChannelActive()
        let admittedInAll = connections.enter()
        countedClient = connections.enter(client: context.channel.remoteAddress?.ipAddress)
        guard admittedInAll else {
            refused = true
            let problem = Problem.notReady("This instance has server.max_connections connections open; retry shortly.")
            Self.answer(context, problem)
            return
        }
        if let client = countedClient, connections.isOverLimit(client: client) {
            refused = true
            let problem = Problem.rateLimited(
                retryAfterSeconds: 1,
                detail: "This client has server.max_connections_per_client connections open; reuse one, or retry after 1 s."
            )
            Self.answer(context, problem)
            return
        }
        // The same timer that later times each request: first it waits for the first byte.
        arm(context, at: NIODeadline.now() + firstRequestTimeout)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if counted { connections.leave() }
        if let client = countedClient { connections.leave(client: client) }
        counted = false
        countedClient = nil
        check?.cancel()
        check = nil
        checkDue = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        spoke = true
        if requestStarted == nil {
            let now = NIODeadline.now()
            requestStarted = now
            // Moved only when it would fire after this request's deadline: for the first request, when the first-request
            // timer is further away than `server.request_timeout_seconds`; later requests find it at or before theirs.
            if checkDue.map({ $0 > now + requestTimeout }) ?? true {
                check?.cancel()
                arm(context, at: now + requestTimeout)
            }
        }
        context.fireChannelRead(data)
    }

    /// At `when`: a connection that has sent nothing since it opened is closed (no answer: there is no request to answer,
    /// as nginx's `client_header_timeout`); a request still being read past its deadline is answered 400 and the
    /// connection closed; otherwise the check moves to the current request's deadline, or one timeout ahead when no
    /// request is being read.
    private func arm(_ context: ChannelHandlerContext, at when: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        checkDue = when
        check = context.eventLoop.scheduleTask(deadline: when) {
            let (handler, context) = loopBound.value
            handler.check = nil
            handler.checkDue = nil
            guard !handler.refused, context.channel.isActive else { return }
            guard handler.spoke else {
                context.close(promise: nil)
                return
            }
            let now = NIODeadline.now()
            guard let started = handler.requestStarted else {
                handler.arm(context, at: now + handler.requestTimeout)
                return
            }
            guard now < started + handler.requestTimeout else {
                let problem = Problem.invalidRequest("The request did not arrive whole within server.request_timeout_seconds.")
                Self.answer(context, problem)
                return
            }
            handler.arm(context, at: started + handler.requestTimeout)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is RequestReadCompletely else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        requestStarted = nil
        promise?.succeed()
    }

    /// A whole HTTP/1.1 answer written below the codec, then the connection is closed.
    private static func answer(_ context: ChannelHandlerContext, _ problem: Problem) {
        let requestID = RequestIDs.generate()
        let body = ProblemBody(problem, requestID: requestID).jsonBytes
        var head = "HTTP/1.1 \(problem.status.code) \(problem.status.reasonPhrase)\r\n"
        for field in ProblemAnswer.headers(for: problem, requestID: requestID, contentLength: body.count) {
            head += "\(field.name.rawName): \(field.value)\r\n"
        }
        head += "Connection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        let channel = context.channel
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in channel.close(promise: nil) }
    }
}
