import Logging
import Synchronization

/// Why PostgreSQL's pool cannot connect, said once (docs/operations.md#shared-state). The pool (PostgresNIO) retries a
/// failed connection about once a second and logs each failure at info, with the error as text, while an operation
/// waits for a connection until its timeout and can only say "no answer within 5 s": a wrong password, a refused port,
/// a TLS mismatch and a missing password all looked alike. The logger handed to the store is wrapped here: each
/// failure's cause is read from the pool's line (`StoreConnectionCause`) and kept for `check-config`; with `report`
/// (`serve`) a new cause is logged once at warning, and the pool's repetitions are not logged at all.
public final class StoreConnectionWatch: Sendable {
    private struct State {
        var latest: StoreConnectionCause?
        var reported: StoreConnectionCause?
    }

    private let state = Mutex(State())

    public init() {}

    /// The cause of the pool's latest failed connection, if one failed.
    public var latestCause: StoreConnectionCause? { state.withLock { $0.latest } }

    /// `logger` with the pool's connection failures taken out; with `report`, each new cause logged once at warning.
    public func watching(_ logger: Logger, report: Bool) -> Logger {
        let inner = logger.handler
        return Logger(label: logger.label) { _ in StoreConnectionLogHandler(inner: inner, watch: self, report: report) }
    }

    /// Whether `cause` differs from the one last reported (a repetition is not news).
    fileprivate func note(_ cause: StoreConnectionCause) -> Bool {
        state.withLock { state in
            state.latest = cause
            guard state.reported != cause else { return false }
            state.reported = cause
            return true
        }
    }
}

/// The wrapping handler: the pool's "Connection creation failed" goes to the watch; every other line to `inner`, at
/// the level it was configured with.
struct StoreConnectionLogHandler: LogHandler {
    var inner: any LogHandler
    let watch: StoreConnectionWatch
    let report: Bool

    /// PostgresNIO's message and metadata key for a failed connection (`PostgresClientMetrics.connectFailed`).
    static let failedMessage = "Connection creation failed"
    static let errorKey = "psql_error"

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    /// At most info, whatever the configured level: the pool's failures are logged at info, and must reach the watch
    /// when the service logs only warnings.
    var logLevel: Logger.Level {
        get { min(inner.logLevel, .info) }
        set { inner.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.message.description == Self.failedMessage, let error = event.metadata?[Self.errorKey] {
            let cause = StoreConnectionCause(poolError: "\(error)")
            if watch.note(cause), report, inner.logLevel <= .warning {
                var warning = event
                warning.level = .warning
                warning.message = "state store: cannot connect; retrying every second"
                warning.metadata = ["reason": .string(cause.description)]
                inner.log(event: warning)
            }
            return
        }
        guard event.level >= inner.logLevel else { return }
        inner.log(event: event)
    }
}
