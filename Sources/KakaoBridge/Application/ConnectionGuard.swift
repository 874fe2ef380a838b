import BridgeJSON
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// The public listener's byte-level guards, in front of the HTTP codec:
/// - `server.max_connections`: past the cap a new connection gets a fast 503 problem and is closed, instead of queueing
///   behind the others until the client gives up;
/// - `server.request_timeout_seconds`: from a request's first byte to its last the client has this long. The idle
///   timeout restarts on every byte, so without this a client sending one byte a minute holds a connection for ever.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    let connections: ConnectionCount
    let requestTimeout: TimeAmount

    init(responder: @escaping HTTPChannelHandler.Responder, config: BridgeConfig.Server, connections: ConnectionCount) {
        self.connections = connections
        self.requestTimeout = .seconds(Int64(config.requestTimeoutSeconds))
        var http1 = ServerLimits.http1()
        let extra = http1.additionalChannelHandlers
        http1.additionalChannelHandlers = { extra() + [RequestEndSignal()] }
        self.inner = HTTP1Channel(responder: responder, configuration: http1)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let guardHandler = ConnectionGuard(connections: connections, requestTimeout: requestTimeout)
        return channel.eventLoop.makeCompletedFuture {
            try channel.syncOptions?.setOption(.recvAllocator, value: Self.receiveBuffers)
            try channel.pipeline.syncOperations.addHandler(guardHandler, position: .first)
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    /// A connection keeps its last read buffer for the next read. NIO starts it at 2 KiB; what apps send is a GET of a
    /// few hundred bytes, so 512 suffices, and a connection that sends more (the backend's hook) gets a larger buffer
    /// after one full read. A thousand idle keep-alive connections hold 1.5 MiB less.
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 64 << 10)

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Open connections of one listener.
final class ConnectionCount: Sendable {
    let limit: Int
    private let open = Atomic<Int>(0)

    init(limit: Int) { self.limit = max(1, limit) }

    /// `false` when the connection is one too many (it is counted either way, and uncounted by `leave`).
    func enter() -> Bool { open.add(1, ordering: .relaxed).newValue <= limit }
    func leave() { open.subtract(1, ordering: .relaxed) }
    var current: Int { open.load(ordering: .relaxed) }
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

/// First in the pipeline: counts the connection, and times each request from its first byte.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = NIOAny
    typealias OutboundOut = NIOAny

    private let connections: ConnectionCount
    private let requestTimeout: TimeAmount
    private var counted = false
    private var refused = false
    /// When the request being read began (its first byte); `nil` between requests.
    private var requestStarted: NIODeadline?
    /// One timer per connection, re-armed when it fires: scheduling and cancelling a timer for every request would cost
    /// every request an allocation and two timer-heap operations.
    private var check: Scheduled<Void>?

    init(connections: ConnectionCount, requestTimeout: TimeAmount) {
        self.connections = connections
        self.requestTimeout = requestTimeout
    }

    /// The rest of the pipeline sees a refused connection open and close with no request in between, so that nothing
    /// above waits for it.
    func channelActive(context: ChannelHandlerContext) {
        counted = true
        context.fireChannelActive()
        guard connections.enter() else {
            refused = true
            let problem = Problem.notReady("This instance has server.max_connections connections open; retry shortly.")
            Self.answer(context, status: "503 Service Unavailable", problem)
            return
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if counted { connections.leave() }
        counted = false
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        if requestStarted == nil {
            let now = NIODeadline.now()
            requestStarted = now
            if check == nil { arm(context, at: now + requestTimeout) }
        }
        context.fireChannelRead(data)
    }

    /// At `when`: a request still being read past its deadline is answered 400 and the connection closed; otherwise the
    /// check moves to the current request's deadline, or one timeout ahead when no request is being read.
    private func arm(_ context: ChannelHandlerContext, at when: NIODeadline) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleTask(deadline: when) {
            let (handler, context) = loopBound.value
            handler.check = nil
            guard !handler.refused, context.channel.isActive else { return }
            let now = NIODeadline.now()
            guard let started = handler.requestStarted else {
                handler.arm(context, at: now + handler.requestTimeout)
                return
            }
            guard now < started + handler.requestTimeout else {
                let problem = Problem.invalidRequest("The request did not arrive whole within server.request_timeout_seconds.")
                Self.answer(context, status: "400 Bad Request", problem)
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
    private static func answer(_ context: ChannelHandlerContext, status: String, _ problem: Problem) {
        let requestID = RequestIDs.generate()
        let body = ProblemBody(problem, requestID: requestID).jsonBytes
        var head = "HTTP/1.1 \(status)\r\nContent-Type: application/problem+json\r\nCache-Control: no-store\r\n"
        head += "X-Request-ID: \(requestID)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        let channel = context.channel
        context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in channel.close(promise: nil) }
    }
}
