/// Appends JSON to a byte array: the one way the service writes JSON (answers, problem bodies, upstream requests, token
/// payloads, log lines). `JSONEncoder` goes through the `Encodable` machinery and a `Data` copy, several times the cost of
/// writing the bytes. Output is what `JSONEncoder` with `.withoutEscapingSlashes` writes: slashes unescaped, `nil`
/// members omitted, whole doubles without `.0`; `JSONValue` objects in key order when `sortsKeys` is set.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value or key in the current container needs a comma before it.
    private var needsComma = false
    /// `JSONValue` objects in key order (stable output for stand-ins and files); off on the hot path, where the order
    /// of a passed-through object does not matter and sorting its keys would cost every answer.
    public var sortsKeys = false

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    public mutating func openObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func closeObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func openArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func closeArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    public mutating func key(_ key: String) {
        separate()
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        separate()
        appendDecimal(value)
        needsComma = true
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        needsComma = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: Self.nullBytes)
        needsComma = true
    }

    public mutating func double(_ value: Double) {
        separate()
        var text = value.isFinite ? value.description : "null"
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .int(let number): int(number)
        case .double(let number): double(number)
        case .string(let text): string(text)
        case .array(let elements):
            openArray()
            for element in elements { self.value(element) }
            closeArray()
        case .object(let members):
            openObject()
            if sortsKeys {
                for name in members.keys.sorted() {
                    key(name)
                    self.value(members[name]!)
                }
            } else {
                for (name, member) in members {
                    key(name)
                    self.value(member)
                }
            }
            closeObject()
        }
    }

    // Optional members, omitted when nil as synthesized `Encodable` does.

    public mutating func member(_ name: String, _ value: String?) {
        guard let value else { return }
        key(name)
        string(value)
    }

    public mutating func member(_ name: String, _ value: Int64?) {
        guard let value else { return }
        key(name)
        int(value)
    }

    public mutating func member(_ name: String, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    public mutating func member(_ name: String, _ value: (some JSONWritable)?) {
        guard let value else { return }
        key(name)
        value.write(to: &self)
    }

    // MARK: Bytes

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendDecimal(_ value: Int64) {
        if value >= 0, value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        bytes.append(contentsOf: String(value).utf8)
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// A value that writes itself with `JSONWriter`.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}

extension JSONValue: JSONWritable {
    public func write(to writer: inout JSONWriter) { writer.value(self) }
}
