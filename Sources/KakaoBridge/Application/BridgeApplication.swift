import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The Hummingbird application plus the one thing it cannot do itself: turn `/readyz` 503 the moment a graceful
/// shutdown starts. Hummingbird shuts its server down first and its other services after, so a service inside the
/// application would hear of the shutdown only once the server has already stopped.
public struct BridgeApplication: ApplicationProtocol, CustomStringConvertible {
    public typealias Responder = LoginAdmission

    let inner: Application<Responder>
    /// The live state: tests and `serve` reach readiness and reload through it.
    public let holder: StateHolder

    /// ServiceLifecycle logs services by description; keep it to a name.
    public var description: String { "kakao-bridge" }

    public var responder: Responder { inner.responder }
    public var server: HTTPServerBuilder { inner.server }
    public var eventLoopGroup: any EventLoopGroup { inner.eventLoopGroup }
    public var configuration: ApplicationConfiguration { inner.configuration }
    public var logger: Logger { inner.logger }
    public var services: [any Service] { inner.services }
    public var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { inner.processesRunBeforeServerStart }
    public func onServerRunning(_ channel: any Channel) async { await inner.onServerRunning(channel) }

    public func run() async throws {
        let holder = holder
        let logger = logger
        try await withGracefulShutdownHandler {
            try await inner.run()
        } onGracefulShutdown: {
            holder.isDraining = true
            logger.info("shutting down: readiness is now 503, no new connections, in-flight requests finish")
        }
    }
}
