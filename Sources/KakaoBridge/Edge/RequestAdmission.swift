import DequeModule
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import NIOHTTP1
import Synchronization

/// Every request passes here on its way to the router: logins a bounded number at a time, in arrival order; everything
/// else straight through. What apps call (the logins and the nonce) runs in a child task of its own.
///
/// Why the order: when a crowd arrives, a login that came first is served first instead of whenever the scheduler gets
/// to it, which keeps the crowd's tail close to its median (docs/benchmarks.md#memory-and-speed-rules-in-the-code).
///
/// Why the child task: a task keeps the slabs of its deepest stack of async frames until it ends, and a connection's
/// task serves every request of that connection. A request is deep (the middlewares, the route, `LoginFlow`, the Kakao
/// client, `Upstream`, CurlHTTP), so a keep-alive connection that ran one in its own task kept that request's frames
/// for the rest of its life. In a child task the frames are freed when the request answers. The child is started with
/// `Task.immediate`: it runs on the connection task's thread (the connection's event loop, `LoopExecutor`) at once, so
/// the only cost is one more resumption when it answers (a child that waited for a pool thread first queued behind other
/// logins' signatures). The connection's own
/// frames down to the child are kept small too (`Arrival`, one async function for the admission and the wait): each of
/// them is paid for by every open connection. The backend's hook and revoke calls, Kakao's webhook, probes and
/// `/metrics` run in the connection's task: they come over a few connections that are reused, so frames kept there cost
/// little, and the hook, the busiest, saves a task per call. What each of these choices measured is in
/// docs/benchmarks.md#memory-and-speed-rules-in-the-code.
///
/// Why the bound: a crowd's logins beyond it wait holding one continuation each, not a login's worth of frames.
///
/// Only the two login routes wait here. The hook and the revoke endpoint must not: the backend calls them while a
/// login's step 6 holds a place, so queueing them behind logins could wait on itself. Probes, metrics, nonces and
/// Kakao's webhook are cheap and must answer under load.
public struct RequestAdmission: HTTPResponder {
    public typealias Context = BridgeRequestContext

    let inner: RouterResponder<BridgeRequestContext>
    let queue: AdmissionQueue

    /// Logins admitted at once: enough to keep every core signing while the rest wait on Kakao (a login's CPU is a
    /// small part of its wait), and on 2 cores as many Kakao calls (two each) as `upstream.max_in_flight`'s
    /// default admits.
    static func limit(cores: Int) -> Int { 64 * max(1, cores) }

    /// The routes whose `Route.admission` is `.login` (`GET /v1/token-exchange` and the seed-compatible
    /// `GET /v1/kakao/{access_token}`), matched on the raw path as the router would.
    static func isLogin(method: HTTPRequest.Method, path: Substring) -> Bool {
        admission(method: method, path: path) == .login
    }

    /// Out of line: the path it reads would otherwise be a value in `respond`'s frame, which every open connection keeps.
    @inline(never)
    private static func admission(of arrival: Arrival) -> Route.Admission {
        admission(method: arrival.request.method, path: Substring(arrival.request.uri.path))
    }

    /// A method the route does not take is answered 405 by the router, in place.
    static func admission(method: HTTPRequest.Method, path: Substring) -> Route.Admission {
        guard let route = Route.match(path), route.answeredMethods.contains(method) else { return .inPlace }
        return route.admission
    }

    /// The entry `BridgeApplication` calls for every request, as Hummingbird's application does: the request's context,
    /// then the answer; an error that is not the client's malformed HTTP becomes a 500 (the router's `EdgeMiddleware`
    /// has already turned every error of ours into a problem, so this is a last resort).
    func answer(_ request: Request, channel: any Channel, logger: Logger) async throws -> Response {
        do {
            return try await respond(Self.arrival(request, channel: channel, logger: logger))
        } catch {
            return try Self.lastResort(error, logger: logger)
        }
    }

    // The synchronous work around the awaits is in functions of its own, kept out of line: what an async function
    // computes in its own body can end up in its frame, which is kept (see `Arrival`).

    @inline(never)
    private static func arrival(_ request: Request, channel: any Channel, logger: Logger) -> Arrival {
        Arrival(request, Context(source: .init(channel: channel, logger: logger)))
    }

    @inline(never)
    static func lastResort(_ error: any Error, logger: Logger) throws -> Response {
        if let error = error as? HTTPParserError { throw error }
        logger.debug("unhandled error", metadata: ["error_type": "\(type(of: error))"])
        return Response(status: .internalServerError)
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        try await respond(Arrival(request, context))
    }

    /// Every function from here to the login's child task holds the request by this one reference: the frames of a
    /// connection's task stay as deep as the deepest request it served, for as long as the connection is open, and a
    /// `Request` is a large value.
    final class Arrival: Sendable {
        let request: Request
        let context: Context

        init(_ request: Request, _ context: Context) {
            self.request = request
            self.context = context
        }
    }

    /// One async function from the arrival to the child's answer: each level of async call keeps a slot for the
    /// `Response` and a header of its own in the connection task's frames, paid for by every open connection.
    @inline(never)
    private func respond(_ arrival: Arrival) async throws -> Response {
        let kind = Self.admission(of: arrival)
        if kind == .inPlace { return try await Self.inPlace(inner, arrival) }
        var admissionWait = Duration.zero
        if kind == .login {
            let queued = ContinuousClock.now
            if try await queue.enter() { admissionWait = ContinuousClock.now - queued }
        }
        defer { if kind == .login { queue.leave() } }
        // The request's frames live in the child and are freed when it answers (see the type's comment).
        let child = Self.child(inner, arrival, admissionWait: admissionWait)
        return try await withTaskCancellationHandler { try await child.value } onCancel: { child.cancel() }
    }

    /// Everything but the logins and the nonce, in the connection's task (see the type's comment).
    @inline(never)
    private static func inPlace(_ inner: RouterResponder<Context>, _ arrival: Arrival) async throws -> Response {
        try await inner.respond(to: arrival.request, context: arrival.context)
    }

    /// Started at once on this thread (`Task.immediate`), so the only cost over running in place is one more
    /// resumption when it answers; cancelled with the connection's task.
    @inline(never)
    private static func child(_ inner: RouterResponder<Context>, _ arrival: Arrival, admissionWait: Duration) -> Task<Response, any Error> {
        // An unstructured task does not inherit the connection's loop: it is given it, so that a login resumed by curl's
        // thread signs and answers on its loop too.
        Task.immediate(executorPreference: LoopExecutor.current) {
            var context = arrival.context
            context.admissionWait = admissionWait
            return try await inner.respond(to: arrival.request, context: context)
        }
    }
}

/// First come, first served: at most `limit` holders at once; the others wait in arrival order.
///
/// Unlike `InFlightGate`, which fails a call past its bound, this one queues: the waiting is the point. A waiter costs one
/// continuation, where a request admitted deep into the service keeps a few tens of KiB of async frames alive (see
/// `RequestAdmission`). The queue itself is bounded by the connection cap (`server.max_connections`): a connection has at most
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
