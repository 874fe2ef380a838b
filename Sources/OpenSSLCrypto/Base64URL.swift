/// RFC 4648 §5 base64url without padding, as JWS uses it. Pure Swift: it runs on every token.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

    /// 0xFF marks bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    public static func encode(_ string: String) -> String {
        encode(Array(string.utf8))
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        let full = bytes.count / 3
        let rest = bytes.count % 3
        let length = full * 4 + (rest == 0 ? 0 : rest + 1)
        return String(unsafeUninitializedCapacity: length) { output in
            alphabet.withUnsafeBufferPointer { a in
                bytes.withUnsafeBufferPointer { input in
                    var o = 0
                    var i = 0
                    for _ in 0..<full {
                        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        output[o] = a[Int(v >> 18 & 63)]
                        output[o + 1] = a[Int(v >> 12 & 63)]
                        output[o + 2] = a[Int(v >> 6 & 63)]
                        output[o + 3] = a[Int(v & 63)]
                        i += 3
                        o += 4
                    }
                    if rest == 1 {
                        let v = UInt32(input[i]) << 16
                        output[o] = a[Int(v >> 18 & 63)]
                        output[o + 1] = a[Int(v >> 12 & 63)]
                    } else if rest == 2 {
                        let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                        output[o] = a[Int(v >> 18 & 63)]
                        output[o + 1] = a[Int(v >> 12 & 63)]
                        output[o + 2] = a[Int(v >> 6 & 63)]
                    }
                }
            }
            return length
        }
    }

    public static func decode(_ string: String) -> [UInt8]? {
        var string = string
        return string.withUTF8 { decode(utf8: $0) }
    }

    public static func decode(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { decode(utf8: $0) }
    }

    /// Strict: no padding, no whitespace, nothing outside the alphabet, and the unused low bits of the
    /// last character must be zero, so every byte string has exactly one accepted encoding.
    public static func decode(utf8 input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let full = input.count / 4
        let rest = input.count % 4
        if rest == 1 { return nil }
        // An empty array must not go through `unsafeUninitializedCapacity`: with capacity 0 it writes the count into
        // Swift's shared empty-array storage, a data race ThreadSanitizer reports.
        if input.isEmpty { return [] }
        let length = full * 3 + (rest == 0 ? 0 : rest - 1)
        var failed = false
        let output = values.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: length) { out, initialized in
                var i = 0
                var o = 0
                var bad: UInt8 = 0
                for _ in 0..<full {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                    bad |= a | b | c | d
                    let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: v >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: v)
                    i += 4
                    o += 3
                }
                if rest == 2 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                    bad |= a | b
                    if b & 0x0F != 0 { failed = true }
                    out[o] = a << 2 | b >> 4
                } else if rest == 3 {
                    let a = table[Int(input[i])], b = table[Int(input[i + 1])], c = table[Int(input[i + 2])]
                    bad |= a | b | c
                    if c & 0x03 != 0 { failed = true }
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = b << 4 | c >> 2
                }
                // Alphabet values fit in 6 bits; the 0xFF marker sets the top bits.
                if bad & 0xC0 != 0 { failed = true }
                initialized = length
            }
        }
        return failed ? nil : output
    }
}
