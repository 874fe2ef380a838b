/// A strict RFC 8259 parser straight into `JSONValue`. Every request reads two Kakao answers and every hook call two JWT
/// segments; Foundation's `JSONDecoder` copies the bytes into `Data`, builds its own tree and then decodes it again through
/// the `Codable` machinery, which costs several times what a direct parse does.
///
/// Integers written without fraction or exponent that fit in `Int64` stay exact, digit for digit; every other number is
/// a `Double`. Nesting is bounded by
/// `maxDepth`. Strings must be valid UTF-8; escapes, surrogate pairs included, are decoded. Of duplicate object
/// keys the last one wins, as in JavaScript's `JSON.parse`.
public struct JSONParser {
    public struct Failure: Error {}

    /// Deeper JSON than this is refused: nothing the service reads legitimately nests beyond a few levels, and a
    /// recursive parser must not be driven into a stack overflow by a stranger.
    public static let maxDepth = 32

    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
        let parse = { (buffer: UnsafeBufferPointer<UInt8>) in Result { () throws(Failure) in try Self.parse(buffer: buffer) } }
        let result = bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)
        return try result.get()
    }

    public static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONParser(input: buffer)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == buffer.count else { throw Failure() }
        return value
    }

    private let input: UnsafeBufferPointer<UInt8>
    private var position = 0

    private init(input: UnsafeBufferPointer<UInt8>) { self.input = input }

    private var current: UInt8? { position < input.count ? input[position] : nil }

    private mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard input.count - position >= count else { throw Failure() }
        let start = literal.utf8Start
        for offset in 0..<count where input[position + offset] != start[offset] { throw Failure() }
        position += count
    }

    private mutating func value(depth: Int) throws(Failure) -> JSONValue {
        guard let byte = current else { throw Failure() }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        default: return try number()
        }
    }

    private mutating func object(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maxDepth else { throw Failure() }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw Failure() }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw Failure() }
            position += 1
            skipWhitespace()
            members[key] = try value(depth: depth)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw Failure()
            }
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSONValue {
        guard depth <= Self.maxDepth else { throw Failure() }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw Failure()
            }
        }
    }

    private mutating func string() throws(Failure) -> String {
        position += 1
        let start = position
        // Fast path: no escapes, so the bytes between the quotes are the string. ASCII needs no validation, and
        // `String(validating:as:)` is generic enough to cost a metadata lookup per call; claims are nearly always ASCII.
        var nonASCII: UInt8 = 0
        while position < input.count {
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: input[start..<position])
                position += 1
                if nonASCII < 0x80 { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else { throw Failure() }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw Failure() }
            nonASCII |= byte
            position += 1
        }
        var bytes = Array(UnsafeBufferPointer(rebasing: input[start..<position]))
        while true {
            guard let byte = current else { throw Failure() }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: bytes, as: UTF8.self) else { throw Failure() }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &bytes)
            default:
                guard byte >= 0x20 else { throw Failure() }
                bytes.append(byte)
            }
        }
    }

    private mutating func escape(into bytes: inout [UInt8]) throws(Failure) {
        guard let byte = current else { throw Failure() }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                try expect("\\u")
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw Failure() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw Failure()
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw Failure() }
            bytes.append(contentsOf: UTF8.encode(unicode)!)
        default: throw Failure()
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard input.count - position >= 4 else { throw Failure() }
        var result: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Failure()
            }
            result = result << 4 | UInt32(digit)
            position += 1
        }
        return result
    }

    private mutating func number() throws(Failure) -> JSONValue {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { throw Failure() }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            skipDigits()
        }
        var integral = true
        if current == UInt8(ascii: ".") {
            integral = false
            position += 1
            guard try skipDigitsRequired() else { throw Failure() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            integral = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard try skipDigitsRequired() else { throw Failure() }
        }
        let text = UnsafeBufferPointer(rebasing: input[start..<position])
        if integral, let exact = Self.int64(text) { return .int(exact) }
        guard let double = Double(String(decoding: text, as: UTF8.self)), double.isFinite else { throw Failure() }
        // `2.0` and `1e2` stay doubles: `.int` means "written as an integer", which is what an id must be
        // (`JSONValue.intValue`); `int64Value` still reads whole doubles where a number is all that matters (JWT times).
        return .double(double)
    }

    private mutating func skipDigits() {
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
    }

    private mutating func skipDigitsRequired() throws(Failure) -> Bool {
        let start = position
        skipDigits()
        return position > start
    }

    /// `nil` on overflow: the caller falls back to `Double`, as `JSONDecoder` does for `JSONValue`.
    private static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var value: Int64 = 0
        while index < text.count {
            let digit = Int64(text[index] - UInt8(ascii: "0"))
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }
}
