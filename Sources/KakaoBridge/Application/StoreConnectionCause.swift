/// What stopped a connection to PostgreSQL, read from the text PostgresNIO logs for it (`String(reflecting:)` of its
/// `PSQLError`: `PSQLError(code: server, serverInfo: [sqlState: 28P01, …, message: password authentication failed for
/// user "bridge", …])`). Only the code, the SQL state and the server's message are kept: no query, no password.
public enum StoreConnectionCause: Equatable, Sendable, CustomStringConvertible {
    /// The server answered with an error: its SQL state and message (`28P01` wrong password, `3D000` no such database).
    case server(sqlState: String, message: String)
    /// Nothing listens at the address.
    case refused
    /// The server asked for a password and none is configured.
    case passwordMissing
    /// TLS: the server does not offer it (`sslmode=require` or `verify-full`), or the handshake failed.
    case tls(String)
    /// Anything else, by PostgresNIO's error code.
    case other(String)

    public init(poolError text: String) {
        let code = Self.value(after: "code: ", in: text, upTo: [",", ")"]) ?? ""
        switch code {
        case "server":
            let state = Self.value(after: "sqlState: ", in: text, upTo: [",", "]"]) ?? "?????"
            let message = Self.value(after: "message: ", in: text, upTo: [", position: ", ", routine: ", ", severity: ", ", localizedSeverity: ", "]"]) ?? ""
            self = .server(sqlState: state, message: message)
        case "authMechanismRequiresPassword":
            self = .passwordMissing
        case "sslUnsupported":
            self = .tls("the server does not offer TLS, and state.url's sslmode requires it")
        case "failedToAddSSLHandler", "receivedUnencryptedDataAfterSSLRequest":
            self = .tls("the TLS handshake could not start (\(code))")
        default:
            if text.contains("Connection refused") || text.contains("errno: 111") {
                self = .refused
            } else if text.contains("NIOSSL") || text.contains("BoringSSL") || text.contains("handshake") {
                self = .tls("the TLS handshake failed (the server's certificate, with sslmode=verify-full, or its TLS settings)")
            } else {
                self = .other(code.isEmpty ? "unknown" : code)
            }
        }
    }

    public var description: String {
        switch self {
        case .server(let state, let message): "PostgreSQL refused the connection: \(state) \(message)"
        case .refused: "connection refused: nothing listens at state.url's host and port"
        case .passwordMissing: "the server asks for a password and none is set (state.password or state.password_file)"
        case .tls(let reason): "TLS: \(reason)"
        case .other(let code): "the connection failed (\(code))"
        }
    }

    /// The text after `marker` up to the first of `ends` (or the end).
    private static func value(after marker: String, in text: String, upTo ends: [String]) -> String? {
        guard let start = text.firstRange(of: marker)?.upperBound else { return nil }
        let rest = text[start...]
        let end = ends.compactMap { rest.firstRange(of: $0)?.lowerBound }.min() ?? rest.endIndex
        return String(rest[..<end])
    }
}
