import HTTPTypes
import Hummingbird
import Logging
import OpenSSLCrypto

/// Gives every request an id: the proxy's `X-Request-ID` when it is sane (1–128 of `A-Za-z0-9._-`), a fresh one otherwise.
/// The id is echoed in the response and in problem bodies, logged, and passed to upstreams.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = BridgeRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.requestID = Self.sane(request.headers[.xRequestID]) ?? Self.generate()
        context.logger[metadataKey: "request_id"] = .string(context.requestID)
        var response = try await next(request, context)
        response.headers[.xRequestID] = context.requestID
        return response
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

    static func generate() -> String {
        SecureRandom.bytes(count: 12).map { byte in
            let hex = Array("0123456789abcdef")
            return String([hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
        }.joined()
    }
}

extension HTTPField.Name {
    static let xRequestID = HTTPField.Name("X-Request-ID")!
}
