import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// One stand-in's HTTP server on 127.0.0.1 with an ephemeral port, running until `stop()`.
public final class StandInServer: Sendable {
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    private let task: Task<Void, any Error>
    private let group: ServiceGroup

    private init(port: Int, task: Task<Void, any Error>, group: ServiceGroup) {
        self.port = port
        self.task = task
        self.group = group
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
        let application = Application(
            router: router,
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
        return StandInServer(port: port, task: task, group: group)
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
