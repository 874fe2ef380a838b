/// `application/x-www-form-urlencoded` bodies as Google's token endpoint reads them. The stand-ins keep their own
/// decoder rather than the service's `FormCodec`: a stand-in that shared the service's code would share its bugs.
enum FormFields {
    static func parse(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }

    /// `+` as space and `%XX` as that byte; a malformed escape or bytes that are not UTF-8 leave the text as it came.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        while index < text.utf8.endIndex {
            let byte = text.utf8[index]
            if byte == UInt8(ascii: "%"),
                let high = text.utf8.index(index, offsetBy: 1, limitedBy: text.utf8.endIndex), high < text.utf8.endIndex,
                let low = text.utf8.index(index, offsetBy: 2, limitedBy: text.utf8.endIndex), low < text.utf8.endIndex,
                let value = UInt8(String(decoding: [text.utf8[high], text.utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = text.utf8.index(after: low)
                continue
            }
            bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = text.utf8.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self) ?? String(text)
    }

    /// Percent-encodes everything but ASCII letters, digits and `-._`, as a URL path segment needs.
    static func escapePathSegment(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0x0F, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
