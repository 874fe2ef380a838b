import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// One stand-in's HTTP server on 127.0.0.1 with an ephemeral port, running until `stop()`.
public final class StandInServer: Sendable {
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// Every `traceparent` header this server received, in order (docs/operations.md#tracing: the bridge passes one
    /// on to each upstream call when tracing is on).
    public var traceparents: [String] { seen.traceparents }
    private let task: Task<Void, any Error>
    private let group: ServiceGroup
    private let seen: SeenHeaders

    private init(port: Int, task: Task<Void, any Error>, group: ServiceGroup, seen: SeenHeaders) {
        self.port = port
        self.task = task
        self.group = group
        self.seen = seen
    }

    /// Starts `router` and returns once the socket is bound, so callers can use `port` straight away.
    public static func start(
        name: String,
        router: Router<BasicRequestContext>,
        logger: Logger? = nil
    ) async throws -> StandInServer {
        let logger = logger ?? Self.quietLogger(name)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        // The bridge under test and the benchmark open well over 1,000 connections at once.
        let configuration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), backlog: 4096)
        let seen = SeenHeaders()
        let application = Application(
            responder: SeenHeaders.Recording(next: router.buildResponder(), seen: seen),
            configuration: configuration,
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger
        )
        // A service group so `stop()` can shut down gracefully: cancelling the run task makes
        // Hummingbird log every open keep-alive connection as an error.
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            let outcome = await task.result
            if case .failure(let error) = outcome { throw error }
            throw StandInError.couldNotStart(name)
        }
        return StandInServer(port: port, task: task, group: group, seen: seen)
    }

    /// Closes idle connections at once and lets requests in progress finish for up to `grace`.
    public func stop(grace: Duration = .seconds(2)) async {
        await group.triggerGracefulShutdown()
        let task = self.task
        let deadline = Task {
            try await Task.sleep(for: grace)
            task.cancel()
        }
        _ = await task.result
        deadline.cancel()
    }

    static func quietLogger(_ name: String) -> Logger {
        var logger = Logger(label: "standin.\(name)")
        logger.logLevel = .error
        return logger
    }
}

public enum StandInError: Error, Sendable, CustomStringConvertible {
    case couldNotStart(String)

    public var description: String {
        switch self {
        case .couldNotStart(let name): "the \(name) stand-in did not start"
        }
    }
}

/// What a stand-in noticed of its requests' headers: only `traceparent`, for the tracing test.
final class SeenHeaders: Sendable {
    private let values = Mutex<[String]>([])

    var traceparents: [String] { values.withLock { $0 } }

    struct Recording<Next: HTTPResponder>: HTTPResponder where Next.Context == BasicRequestContext {
        let next: Next
        let seen: SeenHeaders

        func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
            if let value = request.headers[.traceparent] { seen.values.withLock { $0.append(value) } }
            return try await next.respond(to: request, context: context)
        }
    }
}

extension HTTPFields.Element.Name {
    static let traceparent = HTTPFields.Element.Name("traceparent")!
}
