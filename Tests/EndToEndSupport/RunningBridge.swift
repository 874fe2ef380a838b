import Upstreams
import BridgeJSON
import BridgeSupport
import CurlHTTP
import Hummingbird
import BridgeFeatures
import KakaoBridge
import Logging

/// The real application, built by `buildApplication` as `serve` builds it, listening on a free loopback port (and, when
/// the configuration sets `server.admin_port`, its admin port on another).
package final class RunningBridge: Sendable {
    package let port: Int
    /// The admin port, when `server.admin_port` is set.
    package let adminPort: Int?
    package let logs: LogSink
    private let task: Task<Void, any Error>

    private init(port: Int, adminPort: Int?, logs: LogSink, task: Task<Void, any Error>) {
        self.port = port
        self.adminPort = adminPort
        self.logs = logs
        self.task = task
    }

    package var baseURL: String { "http://127.0.0.1:\(port)" }
    package var adminURL: String? { adminPort.map { "http://127.0.0.1:\($0)" } }

    package static func start(
        config: BridgeConfig, upstreams: BridgeUpstreams, clock: UnixClock = .system, admissionLimit: Int? = nil
    ) async throws -> RunningBridge {
        BridgeMetrics.bootstrap()
        var config = config
        config.server.host = "127.0.0.1"
        config.server.port = 0
        let wantsAdmin = config.server.adminPort != nil
        if wantsAdmin {
            config.server.adminHost = "127.0.0.1"
            config.server.adminPort = 0
        }
        let logs = LogSink.memory()
        // Trace level: the log-leak test must see every line the service could ever write.
        let logger = Logger.bridge(level: "trace", format: "json", sink: logs)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var environment = BridgeEnvironment(logger: logger, clock: clock) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let (adminPorts, adminContinuation) = AsyncStream<Int>.makeStream()
        environment.onAdminRunning = { port in
            adminContinuation.yield(port)
            adminContinuation.finish()
        }
        if let admissionLimit { environment.loginAdmissionLimit = admissionLimit }
        let app = try buildApplication(config: config, upstreams: upstreams, environment: environment)
        let task = Task {
            defer {
                continuation.finish()
                adminContinuation.finish()
            }
            try await app.run()
        }
        var iterator = ports.makeAsyncIterator()
        var adminIterator = adminPorts.makeAsyncIterator()
        let adminPort = wantsAdmin ? await adminIterator.next() : nil
        guard let port = await iterator.next(), port > 0, !wantsAdmin || (adminPort ?? 0) > 0 else {
            task.cancel()
            _ = await task.result
            throw HarnessError("the bridge did not start")
        }
        return RunningBridge(port: port, adminPort: adminPort, logs: logs, task: task)
    }

    package func stop() async {
        task.cancel()
        _ = await task.result
    }
}

package struct HarnessError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
