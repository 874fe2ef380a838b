import BridgeJSON
import FoundationEssentials

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
        var result = ""
        var cursor = text.startIndex
        for run in tokenRuns(in: text) {
            let longest = text[run].split(separator: ".").map(\.count).max() ?? 0
            guard longest >= 32 else { continue }
            result += text[cursor..<run.lowerBound]
            result += shorten(String(text[run]))
            cursor = run.upperBound
        }
        result += text[cursor...]
        return result
    }

    /// The runs `[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*`, left to right: a dot joins two runs only with a run after it.
    static func tokenRuns(in text: String) -> [Range<String.Index>] {
        var runs: [Range<String.Index>] = []
        var index = text.startIndex
        while index < text.endIndex {
            guard isTokenCharacter(text[index]) else {
                index = text.index(after: index)
                continue
            }
            let start = index
            var end = index
            while end < text.endIndex, isTokenCharacter(text[end]) { end = text.index(after: end) }
            while end < text.endIndex, text[end] == "." {
                let next = text.index(after: end)
                guard next < text.endIndex, isTokenCharacter(text[next]) else { break }
                end = next
                while end < text.endIndex, isTokenCharacter(text[end]) { end = text.index(after: end) }
            }
            runs.append(start..<end)
            index = end
        }
        return runs
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// A JWT's header and payload as JSON objects (the signature is not checked: this is for display only).
    static func decodeJWT(_ token: String) -> (header: [String: JSONValue], claims: [String: JSONValue])? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let header = decodeSegment(parts[0]), let claims = decodeSegment(parts[1])
        else { return nil }
        return (header, claims)
    }

    private static func decodeSegment(_ segment: Substring) -> [String: JSONValue]? {
        var base64 = String(segment.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return JSONValue.parse(data)?.objectValue
    }

    /// Compact JSON with sorted keys, every token inside shortened.
    static func json(_ object: [String: JSONValue]) -> String {
        var writer = JSONWriter()
        writer.sortsKeys = true
        writer.value(.object(object))
        return redact(String(decoding: writer.bytes, as: UTF8.self))
    }
}
