import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// `server.admin_port` (docs/operations.md#the-admin-port): a second listener that serves `/healthz`, `/readyz` and
/// `/metrics` (the routes whose `Route.listener` is `.admin`), so that the probes and the scrape never share the public
/// port, which then answers them 404. Its router has the same `EdgeMiddleware` (request ids, metrics, access lines) and
/// its connections the same guards (`guardedHTTP1`); nothing on it waits for a login's turn, so it answers in the
/// connection's task, without `RequestAdmission`.
///
/// `BridgeApplication.serve` runs its server in the application's service group, between the other services and the
/// public server: a graceful shutdown stops the public server first, while `/readyz` here says 503, then this one.
struct AdminListener: Sendable {
    let responder: RouterResponder<BridgeRequestContext>
    let server: HTTPServerBuilder
    let configuration: ServerConfiguration
    /// Called with the bound port once it listens (tests bind port 0).
    let onRunning: @Sendable (Int) async -> Void

    func buildServer(eventLoopGroup: any EventLoopGroup, logger: Logger, dates: HTTPDate) throws -> any Service {
        let responder = responder
        let onRunning = onRunning
        return try server.buildServer(configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger) { request, writer, channel in
            let response = try await Self.answer(responder, request, channel: channel, logger: logger)
            do {
                try await writer.write(response: BridgeApplication.dated(response.head, dates), body: response.body)
            } catch {
                throw BridgeApplication.writeFailure(error)
            }
        } onServerRunning: { channel in
            logger.info("admin port listening: /healthz, /readyz and /metrics", metadata: ["port": LogValue.int(channel.localAddress?.port ?? 0)])
            await onRunning(channel.localAddress?.port ?? 0)
        }
    }

    /// As `RequestAdmission.answer`: the router's `EdgeMiddleware` has turned every error of ours into a problem already.
    private static func answer(
        _ responder: RouterResponder<BridgeRequestContext>, _ request: Request, channel: any Channel, logger: Logger
    ) async throws -> Response {
        do {
            return try await responder.respond(to: request, context: BridgeRequestContext(source: .init(channel: channel, logger: logger)))
        } catch {
            return try RequestAdmission.lastResort(error, logger: logger)
        }
    }
}
