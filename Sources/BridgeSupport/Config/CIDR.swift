/// An IPv4 or IPv6 network, used to decide whose `X-Forwarded-For` to believe.
///
/// Parsed by hand rather than with `inet_pton` so that the rules are the same on every platform: dotted quads with
/// leading zeros are refused (some parsers read them as octal), host bits after the prefix are ignored.
public struct CIDR: Sendable, Equatable, CustomStringConvertible {
    /// 4 or 16 bytes, host bits already cleared.
    private let network: [UInt8]
    private let prefixLength: Int
    public let description: String

    /// `"10.0.0.0/8"`, `"::1/128"`, or a bare address (a /32 or /128).
    public init?(_ text: String) {
        let trimmed = ConfigText.trimmed(text)
        let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = IPAddressParser.parse(String(parts[0])) else { return nil }
        let maxPrefix = bytes.count * 8
        var prefix = maxPrefix
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(digits), value <= maxPrefix
            else { return nil }
            prefix = value
        }
        self.network = Self.mask(bytes, prefix: prefix)
        self.prefixLength = prefix
        self.description = trimmed
    }

    /// Whether `address` (a bare IPv4 or IPv6 address, as a socket reports it) lies in this network.
    /// An IPv4-mapped IPv6 address (`::ffff:10.1.2.3`, what a dual-stack socket reports) matches IPv4 networks.
    public func contains(_ address: String) -> Bool {
        var text = Substring(ConfigText.trimmed(address))
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard var bytes = IPAddressParser.parse(String(text)) else { return false }
        if bytes.count == 16, network.count == 4, bytes.prefix(12).elementsEqual(Self.v4MappedPrefix) {
            bytes = Array(bytes.suffix(4))
        }
        guard bytes.count == network.count else { return false }
        return Self.mask(bytes, prefix: prefixLength) == network
    }

    public static func == (lhs: CIDR, rhs: CIDR) -> Bool {
        lhs.network == rhs.network && lhs.prefixLength == rhs.prefixLength
    }

    private static let v4MappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]

    private static func mask(_ bytes: [UInt8], prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bitsKept = min(max(prefix - index * 8, 0), 8)
            let byteMask: UInt8 = bitsKept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsKept))
            return byte & byteMask
        }
    }
}

/// Textual IP addresses to bytes: 4 for IPv4, 16 for IPv6.
package enum IPAddressParser {
    package static func parse(_ text: String) -> [UInt8]? {
        text.contains(":") ? parseV6(text) : parseV4(Substring(text))
    }

    package static func parseV4(_ text: Substring) -> [UInt8]? {
        let octets = text.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for octet in octets {
            guard (1...3).contains(octet.count), octet.allSatisfy({ $0.isASCII && $0.isNumber }),
                octet.count == 1 || octet.first != "0",
                let value = UInt8(octet)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    package static func parseV6(_ text: String) -> [UInt8]? {
        let halves = ConfigText.split(text, on: "::")
        guard halves.count <= 2 else { return nil }
        guard let head = groups(halves[0], allowIPv4Tail: halves.count == 1) else { return nil }
        if halves.count == 1 {
            return head.count == 16 ? head : nil
        }
        guard let tail = groups(halves[1], allowIPv4Tail: true) else { return nil }
        // "::" stands for at least one group of zeros.
        guard head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// Colon-separated hex groups (empty text is zero groups); the last may be a dotted IPv4 address.
    private static func groups(_ text: Substring, allowIPv4Tail: Bool) -> [UInt8]? {
        if text.isEmpty { return [] }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for (index, part) in parts.enumerated() {
            if index == parts.count - 1, allowIPv4Tail, part.contains(".") {
                guard let v4 = parseV4(part) else { return nil }
                bytes += v4
                continue
            }
            guard (1...4).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isHexDigit }), let value = UInt16(part, radix: 16)
            else { return nil }
            bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        return bytes.count <= 16 ? bytes : nil
    }
}
