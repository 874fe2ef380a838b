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

/// The public listener's byte-level guards, in front of the HTTP codec:
/// - `server.max_connections`: past the cap a new connection gets a fast 503 problem and is closed, instead of queueing
///   behind the others until the client gives up;
/// - `server.max_connections_per_client`: past it a new connection from that address gets a fast 429 problem, so that
///   one client cannot hold every connection (docs/configuration.md#keys);
/// - `server.first_request_timeout_seconds`: a connection that sends no byte this long after opening is closed, so that
///   idle sockets opened for nothing do not wait for the 75 s idle timeout (`ServerLimits.idleTimeout`), which exists
///   for nginx's keep-alive connections between requests;
/// - `server.request_timeout_seconds`: from a request's first byte to its last the client has this long. The idle
///   timeout restarts on every byte, so without this a client sending one byte a minute holds a connection for ever.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let connections: ConnectionCount
    let requestTimeout: TimeAmount
    let firstRequestTimeout: TimeAmount

    init(responder: @escaping HTTPChannelHandler.Responder, config: BridgeConfig.Server, connections: ConnectionCount) {
        self.connections = connections
        self.requestTimeout = .seconds(Int64(config.requestTimeoutSeconds))
        self.firstRequestTimeout = .seconds(Int64(config.firstRequestTimeoutSeconds))
        var http1 = ServerLimits.http1()
        let extra = http1.additionalChannelHandlers
        http1.additionalChannelHandlers = { extra() + [RequestEndSignal()] }
        self.inner = HTTP1Channel(responder: responder, configuration: http1)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let guardHandler = ConnectionGuard(
            connections: connections, requestTimeout: requestTimeout, firstRequestTimeout: firstRequestTimeout
        )
        return channel.eventLoop.makeCompletedFuture {
            try channel.syncOptions?.setOption(.recvAllocator, value: Self.receiveBuffers)
            try channel.pipeline.syncOperations.addHandler(guardHandler, position: .first)
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    /// A connection keeps its last read buffer for the next read. NIO starts it at 2 KiB; what apps send is a GET of a
    /// few hundred bytes, so 512 suffices, and a connection that sends more (the backend's hook) gets a larger buffer
    /// after one full read (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 64 << 10)

    /// On the connection's own event loop (`LoopExecutor`): the request is served on the thread that read it.
    func handle(value: Value, logger: Logger) async {
        guard let loop = LoopExecutor.of(value.channel.eventLoop) else { return await inner.handle(value: value, logger: logger) }
        await withTaskExecutorPreference(loop) { await inner.handle(value: value, logger: logger) }
    }
}

/// Sent toward the head of the pipeline once a whole request (head and body) has been read.
struct RequestReadCompletely: Sendable {}

/// Behind the HTTP codec: tells `ConnectionGuard` that the request it timed has arrived whole.
final class RequestEndSignal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { context.triggerUserOutboundEvent(RequestReadCompletely(), promise: nil) }
        context.fireChannelRead(data)
    }
}

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

/// HTTP/1.1 with the connection caps, the first-request and per-request read deadlines in front (`ConnectionGuard`).
func guardedHTTP1(_ server: BridgeConfig.Server, holder: FeatureHolder) -> HTTPServerBuilder {
    let connections = ConnectionCount(limit: server.maxConnections, perClientLimit: server.maxConnectionsPerClient) { address in
        let trusted = holder.current?.config.server.trustedProxies ?? server.trustedProxies
        return trusted.contains { $0.contains(address) }
    }
    return HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, config: server, connections: connections) }
}
