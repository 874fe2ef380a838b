/// The URL and host rules of docs/configuration.md#validation: what an upstream URL, a loopback host and a port are.
extension ConfigValidation {
    /// `http://` or `https://`, a non-empty host, an optional numeric port, no whitespace.
    package static func isHTTPURL(_ text: String) -> Bool {
        guard !text.contains(where: { $0.isWhitespace }) else { return false }
        let lowered = text.lowercased()
        let rest: Substring
        if lowered.hasPrefix("https://") {
            rest = text.dropFirst(8)
        } else if lowered.hasPrefix("http://") {
            rest = text.dropFirst(7)
        } else {
            return false
        }
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            return host.count > 2 && (after.isEmpty || validPort(after))
        }
        if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            guard validPort(authority[colon...]) else { return false }
        }
        return !host.isEmpty
    }

    /// `https://`, or `http://` to a loopback host (127.0.0.0/8, ::1, localhost): the stand-ins and local sidecars.
    package static func isSecureOrLoopback(_ text: String) -> Bool {
        let lowered = text.lowercased()
        if lowered.hasPrefix("https://") { return true }
        guard lowered.hasPrefix("http://") else { return false }
        var authority = lowered.dropFirst(7).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host: Substring
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            host = authority[authority.index(after: authority.startIndex)..<close]
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return isLoopback(String(host))
    }

    /// The host of `host:port` or `[v6]:port`; `nil` when the text is not of that shape.
    package static func emulatorHostName(_ text: String) -> String? {
        guard !text.contains(where: { $0.isWhitespace || $0 == "/" || $0 == "@" || $0 == "?" || $0 == "#" }),
              let colon = text.lastIndex(of: ":"), validPort(text[colon...]) else { return nil }
        var host = text[..<colon]
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            return nil
        }
        return host.isEmpty ? nil : String(host)
    }

    /// `127.0.0.0/8`, `::1` or the name `localhost`: where the stand-ins and a local emulator live.
    package static func isLoopback(_ host: String) -> Bool {
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered == "::1" || lowered == "0:0:0:0:0:0:0:1" { return true }
        let octets = lowered.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in UInt8(octet).map { _ in !octet.isEmpty } ?? false }
    }

    /// `:` followed by a port number: 1–5 digits, at most 65535.
    static func validPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && Int(digits).map { $0 <= 65_535 } == true
    }
}
