import ArgumentParser
import BridgeSupport
import FoundationEssentials
import KakaoBridge

/// `--config PATH`, shared by `serve`, `check-config` and the start of `kakao-bridge` with no subcommand.
public struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "Path of the YAML configuration file; BRIDGE_* environment variables override its keys.")
    public var config: String = "config/bridge.yaml"

    public init() {}

    /// Loads and validates the keys of `scope`; on failure prints every problem and exits with EX_CONFIG (78).
    public func load(scope: ConfigScope = .service) throws -> BridgeConfig {
        do {
            return try ConfigLoader.load(path: config, environment: ProcessInfo.processInfo.environment, scope: scope)
        } catch {
            Console.error("kakao-bridge: invalid configuration (\(config)):\n\(error.description)")
            throw ExitCode(78)
        }
    }

    /// Whether the operator has configured anything at all.
    public var isPresent: Bool {
        FileManager.default.fileExists(atPath: config)
            || ProcessInfo.processInfo.environment.keys.contains { $0.hasPrefix("BRIDGE_") }
    }
}
