import ArgumentParser
import BridgeCommandLine
import BridgeSupport
import CurlHTTP
import FoundationEssentials

/// `kakao-bridge health`: the running service's `/readyz`, asked from the same machine (docs/operations.md#health-check),
/// for Docker's `HEALTHCHECK`: the image has no curl, and this binary already has libcurl (CurlHTTP). One line, and the
/// exit status Docker reads: 0 ready, 1 anything else (2 is reserved by Docker, and 78 would read as a crash).
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask the running service's /readyz on this machine; exit 0 when it answers 200, 1 otherwise (for Docker's HEALTHCHECK).",
        discussion: """
            Reads the configuration as serve does (--config, BRIDGE_*). Asks server.admin_port when it is set, otherwise \
            server.port; on loopback when the listener's host is 0.0.0.0 or ::, else on that host.
            """
    )

    @OptionGroup var options: ConfigOption

    @Option(help: "Seconds to wait for the answer.")
    var timeoutSeconds: Double = 3

    func run() async throws {
        let config: BridgeConfig
        do {
            config = try ConfigLoader.load(path: options.config, environment: ProcessInfo.processInfo.environment)
        } catch {
            Console.error("kakao-bridge health: the configuration is not valid (kakao-bridge check-config says why)")
            throw ExitCode(1)
        }
        guard let url = Self.readinessURL(config) else {
            Console.error("kakao-bridge health: server.port is 0 (a port picked at start): no port to ask; set server.admin_port or server.port")
            throw ExitCode(1)
        }
        let http = CurlHTTPClient(maxResponseBytes: 64 * 1024, maxConnectionsPerHost: 1)
        defer { http.shutdown() }
        let timeout = Duration.milliseconds(Int64((min(max(timeoutSeconds, 0.1), 60) * 1000).rounded()))
        let response: HTTPResponse
        do {
            response = try await http.execute(HTTPRequest(method: .get, url: url, timeout: timeout))
        } catch {
            Console.out("kakao-bridge health: \(url): no answer (\(error.kind))")
            throw ExitCode(1)
        }
        guard response.status == 200 else {
            Console.out("kakao-bridge health: \(url): \(response.status), not ready")
            throw ExitCode(1)
        }
        Console.out("kakao-bridge health: \(url): ready")
    }

    /// `/readyz` of the admin listener when there is one (the public port answers it 404 then), else of the public one.
    static func readinessURL(_ config: BridgeConfig) -> String? {
        let (host, port) = config.server.adminPort.map { (config.server.adminHost, $0) } ?? (config.server.host, config.server.port)
        guard port != 0 else { return nil }
        let target = ConfigText.trimmed(host)
        let asked: String
        switch target {
        case "0.0.0.0", "": asked = "127.0.0.1"
        case "::", "[::]": asked = "[::1]"
        default: asked = target.contains(":") && !target.hasPrefix("[") ? "[\(target)]" : target
        }
        return "http://\(asked):\(port)/readyz"
    }
}
