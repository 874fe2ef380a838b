import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// The Hummingbird application, run by a loop of our own (`serve`, for shallower frames per connection), plus one thing
/// the application cannot do itself: turn `/readyz` 503 the moment a graceful shutdown starts. The server is shut down
/// first and the other services after, so a service inside the application would hear of the shutdown only once the
/// server has already stopped.
public struct BridgeApplication: ApplicationProtocol, CustomStringConvertible {
    public typealias Responder = RequestAdmission

    let inner: Application<Responder>
    /// The live state: tests and `serve` reach readiness and reload through it.
    public let holder: FeatureHolder
    /// The probes' and the scrape's own listener, when `server.admin_port` is set.
    let admin: AdminListener?

    /// ServiceLifecycle logs services by description; keep it to a name.
    public var description: String { "kakao-bridge" }

    public var responder: Responder { inner.responder }
    public var server: HTTPServerBuilder { inner.server }
    public var eventLoopGroup: any EventLoopGroup { inner.eventLoopGroup }
    public var configuration: ApplicationConfiguration { inner.configuration }
    public var logger: Logger { inner.logger }
    public var services: [any Service] { inner.services }
    /// None: `serve` runs the server with no prelude (`buildApplication` never asks for one).
    public var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { [] }
    public func onServerRunning(_ channel: any Channel) async { await inner.onServerRunning(channel) }

    public func run() async throws {
        let holder = holder
        let logger = logger
        try await withGracefulShutdownHandler {
            try await serve()
        } onGracefulShutdown: {
            holder.isDraining = true
            logger.info("shutting down: readiness is now 503, no new connections, in-flight requests finish")
        }
    }

    /// What Hummingbird's `Application.run()` does, with a shallower stack under each request: the responder is called
    /// as the concrete `RequestAdmission`, and no task-local logger is bound around it (nothing here reads
    /// `Logger.current`; the context carries the logger). A connection's task keeps the slabs of its deepest stack of
    /// async frames for as long as the connection is open, so every frame between the connection loop and the login's
    /// child task is paid for by each of the thousand connections of a crowd: Hummingbird's closure, `withLogger`, the
    /// task-local scope and the protocol witness (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
    private func serve() async throws {
        let admission = responder
        let logger = logger
        let dates = HTTPDate()
        let server = try server.buildServer(
            configuration: Self.serverConfiguration(configuration), eventLoopGroup: eventLoopGroup, logger: logger
        ) { request, writer, channel in
            let response = try await admission.answer(request, channel: channel, logger: logger)
            do {
                try await writer.write(response: Self.dated(response.head, dates), body: response.body)
            } catch {
                throw Self.writeFailure(error)
            }
        } onServerRunning: { channel in
            // Requests run on the loops (`LoopExecutor`), the listener's among them: a loop busy signing would otherwise
            // accept only NIO's default of 4 connections per turn, and a crowd would wait to be accepted.
            try? await channel.setOption(ChannelOptions.maxMessagesPerRead, value: 256).get()
            await inner.onServerRunning(channel)
        }
        // Last in, first out: the public server stops before the admin listener, which answers `/readyz` 503 while the
        // public one drains, and both before the services they may still be using.
        let adminServer = try admin.map { [try $0.buildServer(eventLoopGroup: eventLoopGroup, logger: logger, dates: dates)] } ?? []
        try await ServiceGroup(configuration: .init(services: services + adminServer + [server], logger: logger)).run()
    }
}

extension BridgeApplication {
    /// The listener's settings as Hummingbird's application derives them (its own conversion is internal to it).
    static func serverConfiguration(_ configuration: ApplicationConfiguration) -> ServerConfiguration {
        ServerConfiguration(
            address: configuration.address, serverName: configuration.serverName, backlog: configuration.backlog,
            reuseAddress: configuration.reuseAddress, availableConnectionsDelegate: configuration.availableConnectionsDelegate
        )
    }

    // Out of line, so that their temporaries are not kept in the frames of every connection (see `serve`).

    @inline(never)
    static func dated(_ head: HTTPResponse, _ dates: HTTPDate) -> HTTPResponse {
        var head = head
        head.headerFields[.date] = dates.current()
        return head
    }

    /// A parse error thrown from the responder would make the connection loop answer 400 after this answer.
    @inline(never)
    static func writeFailure(_ error: any Error) -> any Error {
        error is HTTPParserError ? ParseErrorWhileWriting() : error
    }
}

/// The request's body turned out malformed while the answer was being written: the connection is closed.
private struct ParseErrorWhileWriting: Error {}
