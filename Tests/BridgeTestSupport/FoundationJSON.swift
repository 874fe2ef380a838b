import BridgeJSON
import Foundation

/// What Foundation's `JSONDecoder` reads, as a `JSONValue`: the reference the parser and the writer are held against.
/// Test-only on purpose: the service itself has one JSON path and no `Codable` conformance.
package struct FoundationJSON: Decodable {
    package let value: JSONValue

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            value = .null
        } else if let flag = try? container.decode(Bool.self) {
            value = .bool(flag)
        } else if let number = try? container.decode(Int64.self) {
            value = .int(number)
        } else if let number = try? container.decode(Double.self) {
            value = .double(number)
        } else if let text = try? container.decode(String.self) {
            value = .string(text)
        } else if let array = try? container.decode([FoundationJSON].self) {
            value = .array(array.map(\.value))
        } else {
            value = .object(try container.decode([String: FoundationJSON].self).mapValues(\.value))
        }
    }

    /// Equal up to how a number is held: Foundation reads `2.0` as the integer 2, we keep it a double.
    package static func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.int(let x), .double(let y)), (.double(let y), .int(let x)): return Double(x) == y
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
        default: return a == b
        }
    }

    package static func read(_ bytes: some Collection<UInt8>) throws -> JSONValue {
        try JSONDecoder().decode(FoundationJSON.self, from: Data(bytes)).value
    }
}
