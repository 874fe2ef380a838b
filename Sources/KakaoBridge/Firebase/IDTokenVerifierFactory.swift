import Logging

/// Builds the hook's ID token verifier and starts fetching Google's certificates at once, so that `/readyz` turns ready as
/// soon as they arrive rather than on the first hook call (which a load balancer would never send to an unready instance).
func makeIDTokenVerifier(
    _ config: BridgeConfig, _ certificates: Upstream, _ logger: Logger, clock: UnixClock = .system
) -> (any IDTokenVerifying)? {
    let cache = SecureTokenCertificates(
        upstream: certificates, url: config.firebase.securetokenCertsURL, clock: clock, logger: logger
    )
    startPrefetch(cache)
    return IDTokenVerifier(
        projectID: config.firebase.projectID, tenantID: config.firebase.tenantID,
        clockSkewSeconds: config.firebase.clockSkewSeconds, clock: clock, certificates: cache
    )
}

/// Retries with backoff until the first fetch succeeds; stops early once the verifier is gone (configuration reloaded).
private func startPrefetch(_ cache: SecureTokenCertificates) {
    Task { [weak cache] in
        var pause = Duration.seconds(1)
        while let current = cache, !current.isReady {
            if await current.prefetch() { return }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .seconds(30))
        }
    }
}
