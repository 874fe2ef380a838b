import Hummingbird

/// Logins go past the router a bounded number at a time, in arrival order; everything else goes straight through. What
/// apps call (the logins and the nonce) runs in a child task of its own.
///
/// Why the order: when a crowd arrives, a login that came first is served first instead of whenever the scheduler gets
/// to it, which keeps the crowd's tail close to its median (`crowd`: p99 ÷ p50 1.8 → 1.2).
///
/// Why the child task: a task keeps the slabs of its deepest stack of async frames until it ends, and a connection's
/// task serves every request of that connection. A request is deep (the middlewares, the route, `LoginFlow`, the Kakao
/// client, `Upstream`, CurlHTTP), so a keep-alive connection that ran one in its own task kept that request's frames
/// (about 16 KiB) for the rest of its life: 1,000 keep-alive connections that had each run one request in a child task
/// held 65 MiB, against 81 MiB in their own tasks. In a child task the frames are freed when the request answers. The
/// child is started with `addImmediateTask`: it runs on the connection task's thread at once, so the only cost is one
/// more resumption when it answers. (A child started with
/// `addTask` waited for a pool thread first, behind other logins' signatures: `wait` + 1.5 ms at p50.) The backend's
/// hook and revoke calls, Kakao's webhook, probes and `/metrics` run in the connection's task: they come over a few
/// connections that are reused, so frames kept there cost little, and the hook, the busiest, saves a task per call
/// (`hook`'s cost ratio 0.28 with a child task, 0.26 without).
///
/// Why the bound: a crowd's logins beyond it wait holding one continuation each, not a login's worth of frames.
///
/// Only the two login routes wait here. The hook and the revoke endpoint must not: the backend calls them while a
/// login's step 6 holds a place, so queueing them behind logins could wait on itself. Probes, metrics, nonces and
/// Kakao's webhook are cheap and must answer under load.
public struct LoginAdmission: HTTPResponder {
    public typealias Context = BridgeRequestContext

    let inner: RouterResponder<BridgeRequestContext>
    let queue: AdmissionQueue

    /// Logins admitted at once: enough to keep every core signing while the rest wait on Kakao (a login is about 1 ms
    /// of CPU against tens of ms of waiting), and on 2 cores as many Kakao calls (two each) as `upstream.max_in_flight`'s
    /// default admits.
    static func limit(cores: Int) -> Int { 64 * max(1, cores) }

    /// `GET /v1/token-exchange` and the seed-compatible `GET /v1/kakao/{access_token}`: the paths the router sends to
    /// `TokenExchangeController` and `LegacyController` (the fixed `/v1/kakao/…` paths are matched before the latter).
    static func isLogin(method: HTTPRequest.Method, path: Substring) -> Bool {
        guard method == .get else { return false }
        if path == TokenExchangeController.route { return true }
        guard path.hasPrefix("/v1/kakao/"), !fixedKakaoPaths.contains(path) else { return false }
        let rest = path.dropFirst("/v1/kakao/".count)
        return !rest.isEmpty && !rest.contains("/")
    }

    private static let fixedKakaoPaths: Set<Substring> = [Substring(KakaoNonceController.route), Substring(UnlinkController.route)]

    public func respond(to request: Request, context: Context) async throws -> Response {
        let path = Substring(request.uri.path)
        guard Self.isLogin(method: request.method, path: path) else {
            // The nonce is the other route apps call, on the connection their login will use.
            guard request.method == .get, path == KakaoNonceController.route else {
                return try await inner.respond(to: request, context: context)
            }
            return try await Self.inChildTask(inner, request, context)
        }
        var context = context
        let queued = ContinuousClock.now
        let waited = try await queue.enter()
        defer { queue.leave() }
        if waited { context.admissionWait = ContinuousClock.now - queued }
        return try await Self.inChildTask(inner, request, context)
    }

    /// The request's frames live in the child and are freed when it answers (see the type's comment).
    private static func inChildTask(_ inner: RouterResponder<Context>, _ request: Request, _ context: Context) async throws -> Response {
        try await withThrowingTaskGroup(of: Response.self) { group in
            group.addImmediateTask { try await inner.respond(to: request, context: context) }
            // One child, which either answers or throws: `next()` gives its result.
            guard let response = try await group.next() else { throw CancellationError() }
            return response
        }
    }
}
