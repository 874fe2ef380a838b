import NIOCore
import NIOHTTPTypes

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
