import BridgeSupport
import FoundationEssentials
import KakaoBridge

/// The sandbox's non-generated settings (app id, token lifetime, logging, …) come from `config/sandbox.yaml`, read by the
/// same loader as `serve`'s file; generated values (stand-in URLs, key file, secrets) are layered on top by the caller.
enum SandboxDefaults {
    static let path = "config/sandbox.yaml"

    /// The file's values, for a binary run outside the repository.
    static let builtIn = """
        server: {host: 127.0.0.1, port: 8080, shutdown_grace_seconds: 1}
        kakao: {app_id: 100001, oidc: {audiences: [sandbox-native-app-key]}, events: {audiences: [sandbox-rest-api-key]}}
        hook: {check_revoked: true}
        upstream: {timeout_ms: 2000}
        log: {level: info, format: text}
        """

    /// `generated` uses the `BRIDGE_*` names because the loader lets those win over the file, which is the precedence
    /// wanted here; the process's own environment is deliberately not consulted.
    static func load(path: String, generated: [String: String]) throws(ConfigError) -> (config: BridgeConfig, source: String) {
        if FileManager.default.fileExists(atPath: path) {
            return (try ConfigLoader.load(path: path, environment: generated), path)
        }
        return (try ConfigLoader.parse(yaml: builtIn, environment: generated), "built-in defaults (\(path) not found)")
    }
}
