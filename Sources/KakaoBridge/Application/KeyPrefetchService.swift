import BridgeFeatures
import Logging
import ServiceLifecycle
import Upstreams

/// Fetches Google's certificates as soon as the service starts, and again after a reload swapped in a new hook
/// verifier, so that `/readyz` turns ready when they arrive rather than on the first hook call (which a load balancer
/// would never send to an unready instance). Retries with backoff while the fetch fails.
struct KeyPrefetchService: Service, CustomStringConvertible {
    let holder: FeatureHolder
    let logger: Logger

    var description: String { "KeyPrefetchService" }

    func run() async throws {
        var pause = Duration.seconds(1)
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            if let idTokens = holder.current?.hook?.idTokens, !idTokens.isReady {
                pause = await idTokens.prefetch() ? .seconds(1) : min(pause * 2, .seconds(30))
            }
            let wait = pause
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: wait) }
            } catch {
                return
            }
        }
    }
}
