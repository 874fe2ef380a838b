import HTTPTypes
import Hummingbird
import Logging
import Synchronization

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

    /// 24 hex digits: 40 random bits drawn once per process, then a 56-bit counter. Ids only need to be unique, not
    /// secret (they are echoed to the client that sent the request), so a login costs no random draw and no syscall; the
    /// process's random part keeps instances (and restarts) apart.
    static func generate() -> String {
        let number = counter.wrappingAdd(1, ordering: .relaxed).newValue & (1 << 56 - 1)
        return String(unsafeUninitializedCapacity: 24) { buffer in
            write(processPart, digits: 10, into: buffer, at: 0)
            write(number, digits: 14, into: buffer, at: 10)
            return 24
        }
    }

    private static let processPart = UInt64.random(in: 0..<(1 << 40))
    private static let counter = Atomic<UInt64>(0)

    private static func write(_ value: UInt64, digits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        var value = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            let nibble = UInt8(truncatingIfNeeded: value & 0xF)
            buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            value >>= 4
        }
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-ID")!
}
