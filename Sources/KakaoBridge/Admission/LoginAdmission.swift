import Hummingbird

/// Logins go past the router a bounded number at a time, in arrival order; everything else goes straight through.
///
/// Why the order: when a crowd arrives, a login that came first is served first instead of whenever the scheduler gets
/// to it, which keeps the crowd's tail close to its median (`crowd`: p99 ÷ p50 1.8 → 1.2).
///
/// Why the bound and the child task: a task keeps the slabs of its deepest stack of async frames until it ends, and a
/// connection's task serves every request of that connection. A login is deep (the middlewares, the route, `LoginFlow`,
/// the Kakao client, `Upstream`, CurlHTTP), so a keep-alive connection that has run one keeps a login's worth of frames
/// (about 25 KiB) for the rest of its life. A login that had to wait for its turn therefore runs in a child task, whose
/// frames are freed when it answers; a connection waiting holds one continuation (`crowd`: peak RSS 124 → 99 MiB). A
/// login admitted at once runs in the connection's task: the child's extra trip through the task pool cost `wait` 1.5 ms
/// at p50, because a wakeup there can queue behind other logins' signatures, and when nobody waits there is no crowd
/// whose memory it would save.
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
        guard Self.isLogin(method: request.method, path: Substring(request.uri.path)) else {
            return try await inner.respond(to: request, context: context)
        }
        var context = context
        let queued = ContinuousClock.now
        let waited = try await queue.enter()
        defer { queue.leave() }
        guard waited else {
            // Not crowded: the login runs in the connection's own task. A child task would cost one more trip through
            // the task pool, where a wakeup can wait behind other logins' signatures (`wait`'s p50 rose by 1.5 ms).
            return try await inner.respond(to: request, context: context)
        }
        // Crowded: the login runs in a child task, whose frames are freed when it answers, so a connection that waited
        // does not keep a login's worth of frames for the rest of its life. The extra trip is lost in the wait.
        context.admissionWait = ContinuousClock.now - queued
        let inner = inner
        let admitted = context
        return try await withThrowingTaskGroup(of: Response.self) { group in
            group.addTask { try await inner.respond(to: request, context: admitted) }
            // One child, which either answers or throws: `next()` gives its result.
            guard let response = try await group.next() else { throw CancellationError() }
            return response
        }
    }
}
