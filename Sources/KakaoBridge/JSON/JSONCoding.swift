import Foundation

/// One place that decides how the service reads and writes JSON, and that bounds what it will read.
enum JSONCoding {
    /// Deeper JSON than this is refused before decoding: nothing the service reads legitimately nests beyond a few levels,
    /// and recursive decoders are a stack-overflow risk.
    static let maxDepth = 32

    static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        if type == JSONValue.self { return try JSONParser.parse(bytes) as! T }
        if let direct = type as? any JSONValueDecodable.Type { return try direct.init(json: JSONParser.parse(bytes)) as! T }
        let data = Data(bytes)
        guard nestingDepthIsBounded(data) else { throw JSONDepthError() }
        return try JSONDecoder().decode(type, from: data)
    }

    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Counts brackets outside strings; cheap and linear.
    static func nestingDepthIsBounded(_ data: Data) -> Bool {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped { escaped = false }
                else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maxDepth { return false }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return true
    }
}

struct JSONDepthError: Error {}
