import HTTPTypes
import Hummingbird
import Logging

/// Gives every request an id: the proxy's `X-Request-ID` when it is sane (1–128 of `A-Za-z0-9._-`), a fresh one otherwise.
/// The id is echoed in the response (`EdgeMiddleware`) and in problem bodies, logged, and passed to upstreams.
enum RequestIDs {
    static func assign(_ request: Request, _ context: inout BridgeRequestContext) {
        context.requestID = sane(request.headers[.xRequestID]) ?? generate()
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
    }

    static func sane(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count),
              value.utf8.allSatisfy({ byte in
                  (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                      || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
              })
        else { return nil }
        return value
    }

    /// 96 random bits as 24 hex digits. Ids only need to be unique, not secret; the system generator is enough and
    /// cheaper than a libcrypto call per request.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = UInt64.random(in: 0...UInt64.max, using: &generator)
        let low = UInt32.random(in: 0...UInt32.max, using: &generator)
        return hex(high, digits: 16) + hex(UInt64(low), digits: 8)
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-ID")!
}
