import ServiceLifecycle

/// A loop of the features (`UnlinkMarkFollower`, `AccountEventWorker`) as a ServiceLifecycle `Service`: it runs until the
/// graceful shutdown begins, then is cancelled.
struct BackgroundService: Service, CustomStringConvertible {
    let description: String
    let body: @Sendable () async -> Void

    init(_ name: String, _ body: @escaping @Sendable () async -> Void) {
        self.description = name
        self.body = body
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
    }
}
