import Logging

/// How a log value keeps its JSON type (docs/operations.md#reading-the-logs). swift-log's metadata holds strings, so a
/// number or a boolean travels as `.stringConvertible` of the value itself (an `Int`, a `Double`, a `Bool`), which
/// `LogLine` writes as a JSON number or boolean; `"\(port)"` would be a string. Call sites use these helpers, so the
/// convention is written once.
enum LogValue {
    static func int(_ value: some BinaryInteger) -> Logger.MetadataValue { .stringConvertible(Int64(clamping: value)) }
    static func number(_ value: Double) -> Logger.MetadataValue { .stringConvertible(value) }
    static func bool(_ value: Bool) -> Logger.MetadataValue { .stringConvertible(value) }

    /// A value as `LogLine` writes it: what the convention above carries, read back.
    enum Typed {
        case string(String)
        case int(Int64)
        case number(Double)
        case bool(Bool)
        case array([Logger.MetadataValue])
        case object([String: Logger.MetadataValue])
    }

    static func typed(_ value: Logger.MetadataValue) -> Typed {
        switch value {
        case .string(let string): return .string(string)
        case .stringConvertible(let convertible):
            if let flag = convertible as? Bool { return .bool(flag) }
            if let number = convertible as? any BinaryInteger, let exact = Int64(exactly: number) { return .int(exact) }
            if let number = convertible as? Double, number.isFinite { return .number(number) }
            if let number = convertible as? Float, number.isFinite { return .number(Double(number)) }
            return .string(convertible.description)
        case .array(let values): return .array(values)
        case .dictionary(let members): return .object(members)
        }
    }
}
