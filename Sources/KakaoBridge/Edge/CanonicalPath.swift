/// Every route has one spelling. Hummingbird's router skips empty segments, so `/metrics/` and `//metrics` reached
/// `/metrics`, while a proxy that guards `location = /metrics` passed them on as some other path.
/// A path that is not in its one spelling is answered 404 `not_found` (docs/api.md#conventions) before any route runs:
/// - an empty segment: a trailing slash (`/metrics/`) or a doubled one (`//metrics`, `/v1//token-exchange`);
/// - a dot segment (`/./metrics`, `/v1/../metrics`), which clients and proxies resolve and the router does not;
/// - a percent-encoded character that needs no encoding (`/%6detrics`, RFC 3986 §6.2.2.2: ALPHA, DIGIT, `-._~`), or an
///   encoded slash (`%2F`): both are other spellings of a path a proxy may have decoded before matching it.
/// `/` alone is canonical (and no route). The query string is not part of the path.
enum CanonicalPath {
    static func isCanonical(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        var segmentStart = 1
        for index in 1...bytes.count {
            guard index == bytes.count || bytes[index] == UInt8(ascii: "/") else { continue }
            guard isCanonical(segment: bytes[segmentStart..<index]) else { return false }
            segmentStart = index + 1
        }
        return true
    }

    private static func isCanonical(segment: ArraySlice<UInt8>) -> Bool {
        if segment.isEmpty { return false }
        var decoded: [UInt8] = []
        var index = segment.startIndex
        while index < segment.endIndex {
            let byte = segment[index]
            if byte == UInt8(ascii: "%"), let high = hexValue(segment, index + 1), let low = hexValue(segment, index + 2) {
                let value = high << 4 | low
                if isUnreserved(value) || value == UInt8(ascii: "/") { return false }
                decoded.append(value)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        return decoded != [UInt8(ascii: ".")] && decoded != [UInt8(ascii: "."), UInt8(ascii: ".")]
    }

    private static func hexValue(_ bytes: ArraySlice<UInt8>, _ index: Int) -> UInt8? {
        guard index < bytes.endIndex else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return bytes[index] - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return bytes[index] - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return bytes[index] - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
    }
}
