import DequeModule
import Metrics
import Synchronization

/// First come, first served: at most `limit` holders at once; the others wait in arrival order.
///
/// Unlike `InFlightGate`, which fails a call past its bound, this one queues: the waiting is the point. A waiter costs one
/// continuation, where a request admitted deep into the service keeps a few tens of KiB of async frames alive (see
/// `LoginAdmission`). The queue itself is bounded by the connection cap (`server.max_connections`): a connection has at most
/// one request in it.
public final class AdmissionQueue: Sendable {
    private struct State {
        var holders = 0
        var nextTicket: UInt64 = 0
        var waiters: Deque<(ticket: UInt64, continuation: CheckedContinuation<Void, any Error>)> = []
    }

    let limit: Int
    private let state: Mutex<State>
    /// How many wait now, for operators (`kakao_bridge_logins_waiting` for the login queue).
    private let waitingMeter: Meter?

    init(limit: Int, waitingMeter: Meter? = nil) {
        self.limit = max(1, limit)
        self.waitingMeter = waitingMeter
        state = Mutex(State())
    }

    /// Returns once the caller holds a place, and whether it had to wait for it; it must `leave()` exactly once after.
    /// Throws `CancellationError` when the task is cancelled while still waiting (it then holds nothing).
    @discardableResult
    func enter() async throws -> Bool {
        let ticket: UInt64? = state.withLock { state in
            if state.holders < limit, state.waiters.isEmpty {
                state.holders += 1
                return nil
            }
            state.nextTicket += 1
            return state.nextTicket
        }
        guard let ticket else { return false }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let admitted: Bool? = state.withLock { state in
                    if Task.isCancelled { return false }
                    // A place may have come free between taking the ticket and parking here.
                    if state.holders < limit, state.waiters.isEmpty {
                        state.holders += 1
                        return true
                    }
                    state.waiters.append((ticket, continuation))
                    // Under the lock, like the decrements, so the gauge never reads below zero.
                    waitingMeter?.increment()
                    return nil
                }
                switch admitted {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let removed = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                waitingMeter?.decrement()
                return state.waiters.remove(at: index).continuation
            }
            removed?.resume(throwing: CancellationError())
        }
        return true
    }

    /// Gives the place back: to the longest waiter if there is one.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            if let waiter = state.waiters.popFirst() {
                waitingMeter?.decrement()
                return waiter.continuation
            }
            state.holders -= 1
            return nil
        }
        next?.resume()
    }

    /// How many wait now (for the metric and the tests).
    var waiting: Int { state.withLock { $0.waiters.count } }
    /// How many hold a place now.
    var holding: Int { state.withLock { $0.holders } }
}
