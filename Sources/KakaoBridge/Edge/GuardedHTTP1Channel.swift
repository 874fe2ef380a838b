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

/// HTTP/1.1 with the connection caps, the first-request and per-request read deadlines in front (`ConnectionGuard`).
func guardedHTTP1(_ server: BridgeConfig.Server, holder: FeatureHolder) -> HTTPServerBuilder {
    let connections = ConnectionCount(limit: server.maxConnections, perClientLimit: server.maxConnectionsPerClient) { address in
        let trusted = holder.current?.config.server.trustedProxies ?? server.trustedProxies
        return trusted.contains { $0.contains(address) }
    }
    return HTTPServerBuilder { responder in GuardedHTTP1Channel(responder: responder, config: server, connections: connections) }
}
