import Logging

// Placeholder until the ID token verifier lands: the hook stays unready.
func makeIDTokenVerifier(_ config: BridgeConfig, _ certificates: Upstream, _ logger: Logger) -> (any IDTokenVerifying)? {
    nil
}
