import BridgeSupport
import Metrics
import StateStore
import Synchronization
import Upstreams

/// Whether the state store answers (docs/operations.md#shared-state). `UnlinkMarkFollower` asks it at least every
/// second, and a request whose store call failed or ran out of time says so at once. `/readyz` is 503 until the store has
/// answered once since start (a wrong URL or password keeps a new instance out of rotation); after that an outage does
/// not make it 503 (one database's blip must not empty the load balancer while access-token logins need no store):
/// the requests that need the store answer 503 `state_unavailable` at once instead.
public final class StoreHealth: Sendable {
    public enum State: Sendable, Equatable {
        /// Not answered yet since start.
        case unknown
        case reachable
        case unreachable
    }

    private struct Current {
        var state: State
        var failure: String?
        var answeredOnce: Bool
    }

    private let current: Mutex<Current>
    private let up = Gauge(label: MetricName.stateStoreUp.rawValue)

    /// `answered`: a store that cannot fail to answer (this process's memory) starts reachable.
    public init(answered: Bool = true) {
        current = Mutex(Current(state: answered ? .reachable : .unknown, failure: nil, answeredOnce: answered))
        up.record(answered ? 1 : 0)
    }

    public var state: State { current.withLock { $0.state } }
    /// Requests may use the store: it answered lately, or it has not been tried yet.
    public var isReachable: Bool { state != .unreachable }
    /// Whether the store has answered since start (`/readyz`).
    public var hasAnswered: Bool { current.withLock { $0.answeredOnce } }
    /// The store's reason for the last failure, for the log and `/readyz`; never a secret.
    public var lastFailure: String? { current.withLock { $0.failure } }

    /// A request that needs the store fails at once while it is known to be unreachable, rather than after the store's
    /// own timeout: Kakao's webhook wants its answer within 3 s, and a login should not hang.
    func require() throws(Problem) {
        guard isReachable else { throw Problem.stateUnavailable() }
    }

    /// The store answered; returns the state before.
    @discardableResult
    func succeeded() -> State {
        let before = current.withLock { current in
            defer { current = Current(state: .reachable, failure: nil, answeredOnce: true) }
            return current.state
        }
        up.record(1)
        return before
    }

    /// The store did not answer (or not in time); returns the state before.
    @discardableResult
    func failed(_ reason: String) -> State {
        let before = current.withLock { current in
            defer {
                current.state = .unreachable
                current.failure = reason
            }
            return current.state
        }
        up.record(0)
        return before
    }
}

extension StoreHealth {
    /// The one way a request uses the store: refused at once while the store is known to be unreachable; given up at
    /// `limit` without waiting for the store (a stopped database, or a query waiting on a held lock, ignores
    /// cancellation); and a store that did not answer, or answered that it is unavailable, is marked unreachable, so that
    /// the requests after this one are refused at once until `UnlinkMarkFollower` hears from it again.
    func call<T: Sendable>(
        _ store: any StateStore, _ what: String, within limit: Duration,
        _ body: @escaping @Sendable (any StateStore) async throws(StateStoreError) -> T
    ) async throws(StateStoreError) -> T {
        guard isReachable else { throw StateStoreError(.unavailable, "\(what): the store is unreachable") }
        do {
            return try await withDeadline(limit) { () async throws -> T in try await body(store) }
        } catch let error as StateStoreError {
            if error.kind == .unavailable { failed(error.description) }
            throw error
        } catch is DeadlinePassed {
            let error = StateStoreError(.unavailable, "\(what): no answer within \(limit)")
            failed(error.description)
            throw error
        } catch {
            throw StateStoreError(.unavailable, "\(what): cancelled")
        }
    }
}
