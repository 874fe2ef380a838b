import Foundation

/// How the demo shows tokens: never whole, so its output can be pasted anywhere (issues, chat, CI logs).
enum TokenDisplay {
    /// `AbCdEfGh…wxyz`: enough to tell tokens apart, far too little to use one.
    static func shorten(_ token: String) -> String {
        guard token.count > 16 else { return String(repeating: "•", count: min(token.count, 8)) }
        return String(token.prefix(8)) + "…" + String(token.suffix(4))
    }

    /// Shortens every token-like run inside `text`: a dotted run of base64url (a JWT, an opaque token, a hex key id)
    /// with a segment long enough to be a credential. Emails and URLs have short segments and stay readable.
    static func redact(_ text: String) -> String {
        let range = NSRange(text.startIndex..., in: text)
        var result = ""
        var cursor = text.startIndex
        for match in tokenRun.matches(in: text, range: range) {
            guard let matchRange = Range(match.range, in: text) else { continue }
            let run = text[matchRange]
            let longest = run.split(separator: ".").map(\.count).max() ?? 0
            guard longest >= 32 else { continue }
            result += text[cursor..<matchRange.lowerBound]
            result += shorten(String(run))
            cursor = matchRange.upperBound
        }
        result += text[cursor...]
        return result
    }

    private static let tokenRun = try! NSRegularExpression(pattern: "[A-Za-z0-9_-]+(?:\\.[A-Za-z0-9_-]+)*")

    /// A JWT's header and payload as JSON objects (the signature is not checked: this is for display only).
    static func decodeJWT(_ token: String) -> (header: [String: Any], claims: [String: Any])? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = decodeSegment(parts[0]), let claims = decodeSegment(parts[1])
        else { return nil }
        return (header, claims)
    }

    private static func decodeSegment(_ segment: Substring) -> [String: Any]? {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// Compact JSON with sorted keys, every token inside shortened.
    static func json(_ value: Any) -> String {
        guard JSONSerialization.isValidJSONObject(value),
            let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return redact(String(describing: value)) }
        return redact(String(decoding: data, as: UTF8.self))
    }
}
