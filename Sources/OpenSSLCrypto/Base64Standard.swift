/// RFC 4648 §4 base64 (`+`, `/`, `=` padding): how Google's JSON APIs carry bytes (the IAM Credentials API's
/// `signBlob` takes and returns it). A translation of `Base64URL`, so that there is one codec: same alphabet but for two
/// characters, plus padding.
public enum Base64Standard {
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Array(Base64URL.encode(bytes).utf8)
        for index in text.indices {
            if text[index] == UInt8(ascii: "-") { text[index] = UInt8(ascii: "+") }
            if text[index] == UInt8(ascii: "_") { text[index] = UInt8(ascii: "/") }
        }
        while text.count % 4 != 0 { text.append(UInt8(ascii: "=")) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Padding is optional (Google pads); a `-` or `_`, whitespace or a misplaced `=` is refused.
    public static func decode(_ string: String) -> [UInt8]? {
        var text = Array(string.utf8)
        var padding = 0
        while text.last == UInt8(ascii: "="), padding < 2 {
            text.removeLast()
            padding += 1
        }
        guard padding == 0 || (text.count + padding) % 4 == 0 else { return nil }
        for index in text.indices {
            switch text[index] {
            case UInt8(ascii: "+"): text[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): text[index] = UInt8(ascii: "_")
            case UInt8(ascii: "-"), UInt8(ascii: "_"): return nil
            default: break
            }
        }
        return Base64URL.decode(text)
    }
}
