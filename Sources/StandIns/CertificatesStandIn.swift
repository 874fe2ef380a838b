import BridgeJSON
import Hummingbird
import Logging
import Synchronization

/// Google's securetoken certificate endpoint: `{kid: PEM}` with a `Cache-Control: max-age`.
public final class CertificatesStandIn: Sendable {
    public static let path = "/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"

    public let keys: SecureTokenKeys

    private struct State {
        var maxAge: Int
        var failing = false
        var fetchCount = 0
    }

    private let state: Mutex<State>

    public init(keys: SecureTokenKeys, maxAge: Int = 3600) {
        self.keys = keys
        self.state = Mutex(State(maxAge: maxAge))
    }

    /// The URL to configure as `firebase.securetoken_certs_url`.
    public static func url(on server: StandInServer) -> String {
        server.baseURL + path
    }

    public func setMaxAge(_ seconds: Int) {
        state.withLock { $0.maxAge = seconds }
    }

    /// While failing, every fetch answers 503.
    public func setFailing(_ failing: Bool) {
        state.withLock { $0.failing = failing }
    }

    public var fetchCount: Int { state.withLock { $0.fetchCount } }

    public func resetCounters() {
        state.withLock { $0.fetchCount = 0 }
    }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.get(RouterPath(Self.path)) { _, _ in
            self.answer()
        }
        return try await StandInServer.start(name: "certificates", router: router, logger: logger)
    }

    private func answer() -> Response {
        let (maxAge, failing) = state.withLock { state in
            state.fetchCount += 1
            return (state.maxAge, state.failing)
        }
        if failing {
            let error: JSONValue = .object([
                "code": .int(503),
                "message": .string("The service is currently unavailable."),
                "status": .string("UNAVAILABLE"),
            ])
            return Reply.json(503, ["error": error])
        }
        var response = Reply.json(200, .object(keys.certificatesJSON().mapValues { .string($0) }))
        response.headers[.cacheControl] = "public, max-age=\(maxAge), must-revalidate, no-transform"
        return response
    }
}
