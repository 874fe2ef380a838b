/// One entry of `server.cors_origins` (docs/api.md#web-clients-cors): an origin exactly as a browser sends it in
/// `Origin` (RFC 6454 §6.1), since the service compares the header with the list byte for byte. A value a browser
/// never sends (a trailing slash, a path, capitals, the scheme's default port) would match nothing and fail silently,
/// so it is refused with the spelling to use.
package enum WebOrigin {
    /// Why `text` is not an origin the service can match, or nil when it is one.
    package static func problem(_ text: String) -> String? {
        if text == "*" || text == "null" {
            return "\"\(text)\" is not allowed: list each web origin exactly (e.g. https://app.example.com)"
        }
        let scheme: String
        if text.hasPrefix("https://") {
            scheme = "https"
        } else if text.hasPrefix("http://") {
            scheme = "http"
        } else {
            return "\"\(text)\" is not an origin: it must start with https:// (e.g. https://app.example.com)"
        }
        let authority = text.dropFirst(scheme.count + 3)
        let spelling = "scheme://host[:port] as browsers send it in Origin: lower case, no path, no trailing slash"
        guard !authority.isEmpty, !authority.contains(where: { "/?#@ \t".contains($0) }) else {
            return "\"\(text)\" is not an origin (\(spelling))"
        }
        guard text == text.lowercased() else { return "\"\(text)\" is not an origin (\(spelling)): write \(text.lowercased())" }
        var host = authority
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            let port = authority[authority.index(after: colon)...]
            guard let number = Int(port), (1...65535).contains(number), port.first != "0" else {
                return "\"\(text)\" is not an origin (\(spelling)): the port must be 1–65535"
            }
            if (scheme == "https" && number == 443) || (scheme == "http" && number == 80) {
                return "\"\(text)\" is not an origin (\(spelling)): browsers leave the default port out, write \(scheme)://\(authority[..<colon])"
            }
            host = authority[..<colon]
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return "\"\(text)\" is not an origin (\(spelling))" }
        // A page served over plain HTTP can be rewritten on its way; only a developer's own machine is exempt.
        if scheme == "http", !ConfigValidation.isLoopback(String(host)) {
            return "\"\(text)\" must be https:// (plain http:// only for localhost, 127.0.0.0/8 or [::1], for development)"
        }
        return nil
    }
}
