/// `state.url` (docs/operations.md#shared-state), read: empty for memory, `sqlite:///abs/path`, or
/// `postgres://user@host:port/db?sslmode=...`. The password never appears in it (it comes from
/// `state.password_file`), so a description of this value is safe to log.
public enum StateStoreURL: Sendable, Equatable, CustomStringConvertible {
    case memory
    case sqlite(path: String)
    case postgres(PostgresLocation)

    public struct PostgresLocation: Sendable, Equatable {
        public var user: String
        public var host: String
        public var port: Int
        public var database: String
        public var sslMode: SSLMode

        public init(user: String, host: String, port: Int = 5432, database: String, sslMode: SSLMode = .require) {
            self.user = user
            self.host = host
            self.port = port
            self.database = database
            self.sslMode = sslMode
        }
    }

    /// As libpq spells them; `require` encrypts without checking the certificate, `verify-full` checks it and the name.
    public enum SSLMode: String, Sendable, Equatable, CaseIterable {
        case disable
        case require
        case verifyFull = "verify-full"
    }

    /// Reads the value, listing every problem found.
    public init(parsing text: String) throws(StateStoreURLError) {
        let text = text.trimmingSpaces()
        if text.isEmpty {
            self = .memory
            return
        }
        if text.hasPrefix("sqlite:") {
            self = try Self.sqlite(text)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(try Self.postgres(text))
        } else {
            throw StateStoreURLError(problems: ["state.url must be empty, sqlite:///ABSOLUTE/PATH or postgres://USER@HOST:PORT/DATABASE"])
        }
    }

    public var description: String {
        switch self {
        case .memory: "memory"
        case .sqlite(let path): "sqlite://\(path)"
        case .postgres(let p): "postgres://\(p.user)@\(p.host.contains(":") ? "[\(p.host)]" : p.host):\(p.port)/\(p.database)?sslmode=\(p.sslMode.rawValue)"
        }
    }

    /// Whether the store outlives the process (`kakao-bridge unlinks` has nothing to read otherwise).
    public var isDurable: Bool { self != .memory }

    private static func sqlite(_ text: String) throws(StateStoreURLError) -> StateStoreURL {
        guard text.hasPrefix("sqlite:///") else {
            throw StateStoreURLError(problems: ["state.url: a SQLite path must be absolute: sqlite:///ABSOLUTE/PATH (three slashes)"])
        }
        let path = String(text.dropFirst("sqlite://".count))
        var problems: [String] = []
        if path.count < 2 || path.hasSuffix("/") { problems.append("state.url: the SQLite URL names no file") }
        if path.contains("?") || path.contains("#") { problems.append("state.url: a SQLite URL takes no query or fragment") }
        if path.split(separator: "/").contains(where: { $0 == ".." }) { problems.append("state.url: the SQLite path must not contain ..") }
        guard problems.isEmpty else { throw StateStoreURLError(problems: problems) }
        return .sqlite(path: path)
    }

    private static func postgres(_ text: String) throws(StateStoreURLError) -> PostgresLocation {
        var rest = Substring(text[text.firstRange(of: "://")!.upperBound...])
        var problems: [String] = []

        var query: Substring = ""
        if let q = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: q)...]
            rest = rest[..<q]
        }
        if rest.contains("#") { problems.append("state.url: a fragment (#) is not allowed") }

        var user = ""
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if userInfo.contains(":") {
                // Said without repeating what followed the colon: it may be the password.
                throw StateStoreURLError(problems: [
                    "state.url must not contain a password: put it in the file named by state.password_file",
                ])
            }
            user = String(userInfo)
        }
        if user.isEmpty { problems.append("state.url: the user is missing (postgres://USER@HOST:PORT/DATABASE)") }

        var database = ""
        if let slash = rest.firstIndex(of: "/") {
            database = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
        }
        if database.isEmpty { problems.append("state.url: the database name is missing") }
        if database.contains("/") { problems.append("state.url: the database name must not contain /") }

        var host = String(rest)
        var port = 5432
        if host.hasPrefix("[") {
            if let close = host.firstIndex(of: "]") {
                let after = host[host.index(after: close)...]
                let inside = String(host[host.index(after: host.startIndex)..<close])
                if after.hasPrefix(":") {
                    if let p = Int(after.dropFirst()), (1...65535).contains(p) { port = p } else { problems.append("state.url: the port must be a number from 1 to 65535") }
                } else if !after.isEmpty {
                    problems.append("state.url: unexpected text after the IPv6 address")
                }
                host = inside
            } else {
                problems.append("state.url: an IPv6 address lacks its closing ]")
            }
        } else if let colon = host.lastIndex(of: ":") {
            let portText = host[host.index(after: colon)...]
            if let p = Int(portText), (1...65535).contains(p) { port = p } else { problems.append("state.url: the port must be a number from 1 to 65535") }
            host = String(host[..<colon])
        }
        if host.isEmpty { problems.append("state.url: the host is missing") }

        var sslMode: SSLMode = .require
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0]
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch key {
            case "sslmode":
                if let mode = SSLMode(rawValue: value) {
                    sslMode = mode
                } else {
                    problems.append("state.url: sslmode must be disable, require or verify-full (not \(value))")
                }
            case "password":
                problems.append("state.url must not contain a password: put it in the file named by state.password_file")
            default:
                problems.append("state.url: unknown parameter \(key) (only sslmode is read)")
            }
        }
        guard problems.isEmpty else { throw StateStoreURLError(problems: problems) }
        return PostgresLocation(user: user, host: host, port: port, database: database, sslMode: sslMode)
    }
}

/// What is wrong with `state.url`, every problem at once. Never quotes a password.
public struct StateStoreURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let problems: [String]

    public var description: String { problems.joined(separator: "; ") }
}
