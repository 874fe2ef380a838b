/// Any JSON value, kept as sent: the one JSON type of the service, the stand-ins and the tests.
///
/// Integers stay `Int64` so that 64-bit ids survive the round trip exactly; other numbers are `Double`. Reading goes
/// through `JSONParser`, writing through `JSONWriter`; there is no `Codable` conformance on purpose, so that no second
/// JSON path can creep back in.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `bytes`; `nil` when they are not one JSON value.
    public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONParser.parse(bytes)
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// Integers as written: `5`, not `5.0`. Kakao ids must be exact JSON integers.
    public var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// Whole numbers, however written: JWT times are integers, but some issuers write `1.7e9`.
    public var int64Value: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9.0e18: return Int64(value)
        default: return nil
        }
    }
}

extension JSONValue {
    /// Converts the loosely typed dictionaries tests and stand-ins write (`["exp": 1, "firebase": [...]]`); `nil` for
    /// anything JSON cannot hold.
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
        default: return nil
        }
    }

    /// Compact, object members in key order, slashes unescaped (Google and Kakao do not escape them either).
    public var serialized: [UInt8] {
        var writer = JSONWriter()
        writer.sortsKeys = true
        writer.value(self)
        return writer.bytes
    }

    public var serializedString: String { String(decoding: serialized, as: UTF8.self) }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
