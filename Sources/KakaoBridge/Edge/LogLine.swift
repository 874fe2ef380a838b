import BridgeJSON
import Logging

/// One log line's metadata, written as `BridgeLogHandler` prints it (docs/operations.md#reading-the-logs): as members of
/// a JSON object, each with its JSON type (`LogValue`), or as `key=value` pairs that read like logfmt, a group of values
/// (`upstream_ms`) as one pair per member under a dotted key (`upstream_ms.kakao=12.5`).
enum LogLine {
    static func json(_ value: Logger.MetadataValue, to line: inout JSONWriter) {
        switch LogValue.typed(value) {
        case .string(let string): line.string(string)
        case .int(let number): line.int(number)
        case .number(let number): line.double(number)
        case .bool(let flag): line.bool(flag)
        case .array(let values):
            line.openArray()
            for value in values { json(value, to: &line) }
            line.closeArray()
        case .object(let members):
            line.openObject()
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                line.key(key)
                json(member, to: &line)
            }
            line.closeObject()
        }
    }

    /// ` key=value` for each member, in key order; nothing for no metadata.
    static func text(_ metadata: Logger.Metadata) -> String {
        var text = ""
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { pairs(key, value, into: &text) }
        return text
    }

    private static func pairs(_ key: String, _ value: Logger.MetadataValue, into text: inout String) {
        if case .object(let members) = LogValue.typed(value) {
            for (member, inner) in members.sorted(by: { $0.key < $1.key }) { pairs(key + "." + member, inner, into: &text) }
            return
        }
        text += " " + key + "=" + scalar(value)
    }

    private static func scalar(_ value: Logger.MetadataValue) -> String {
        switch LogValue.typed(value) {
        case .string(let string):
            return isBare(string) ? string : quoted(string)
        case .array(let values):
            return "[" + values.map(scalar).joined(separator: ",") + "]"
        case .int, .number, .bool, .object:
            var line = JSONWriter(capacity: 32)
            json(value, to: &line)
            return String(decoding: line.bytes, as: UTF8.self)
        }
    }

    /// A word a reader (and logfmt parsers) take as one value: no space, quote, `=`, backslash, bracket or control.
    private static func isBare(_ string: String) -> Bool {
        !string.isEmpty && string.utf8.allSatisfy { byte in
            byte > 0x20 && byte != 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=")
                && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "[") && byte != UInt8(ascii: "]")
                && byte != UInt8(ascii: ",")
        }
    }

    /// JSON's string escaping: a reader knows it, and a newline in a value cannot start a false line.
    private static func quoted(_ string: String) -> String {
        var line = JSONWriter(capacity: string.utf8.count + 2)
        line.string(string)
        return String(decoding: line.bytes, as: UTF8.self)
    }
}
