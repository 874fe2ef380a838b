import Foundation

/// A JSON document parsed strictly: booleans, integers and other numbers stay distinct, which
/// `JSONSerialization`'s NSNumber bridging does not guarantee.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Converts the loosely typed dictionaries tests write (`["exp": 1, "firebase": [...]]`).
    /// Returns nil for anything JSON cannot hold.
    public init?(any value: any Sendable) {
        switch value {
        case let value as JSONValue: self = value
        case let value as Bool: self = .bool(value)
        case let value as String: self = .string(value)
        case let value as Substring: self = .string(String(value))
        case let value as Int: self = .int(Int64(value))
        case let value as Int64: self = .int(value)
        case let value as Int32: self = .int(Int64(value))
        case let value as UInt32: self = .int(Int64(value))
        case let value as UInt64:
            guard let exact = Int64(exactly: value) else { return nil }
            self = .int(exact)
        case let value as Double: self = .double(value)
        case let value as [any Sendable]:
            var items: [JSONValue] = []
            for item in value {
                guard let converted = JSONValue(any: item) else { return nil }
                items.append(converted)
            }
            self = .array(items)
        case let value as [String: any Sendable]:
            var members: [String: JSONValue] = [:]
            for (key, item) in value {
                guard let converted = JSONValue(any: item) else { return nil }
                members[key] = converted
            }
            self = .object(members)
        case is NSNull: self = .null
        default: return nil
        }
    }

    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// Compact, sorted keys, slashes unescaped (Google and Kakao do not escape them either).
    public var serialized: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a JSONValue cannot fail except for non-finite doubles, which tests never send.
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }

    public var serializedString: String { String(decoding: serialized, as: UTF8.self) }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

extension [String: JSONValue] {
    init?(anyObject: [String: any Sendable]) {
        guard case .object(let members)? = JSONValue(any: anyObject) else { return nil }
        self = members
    }
}
