import BridgeJSON
import FoundationEssentials
import Hummingbird
import NIOCore

/// Building answers the way the real services format them.
enum Reply {
    static let kakaoJSON = "application/json;charset=UTF-8"
    static let googleJSON = "application/json; charset=UTF-8"

    static func json(_ status: Int, _ value: JSONValue, contentType: String = googleJSON) -> Response {
        bytes(status, value.serialized, contentType: contentType)
    }

    static func json(_ status: Int, _ members: [String: JSONValue], contentType: String = googleJSON) -> Response {
        json(status, .object(members), contentType: contentType)
    }

    static func text(_ status: Int, _ body: String, contentType: String) -> Response {
        bytes(status, Array(body.utf8), contentType: contentType)
    }

    static func bytes(_ status: Int, _ body: [UInt8], contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}

extension Request {
    /// Stand-ins never need large bodies; a bridge that sends more is broken.
    func bodyBytes() async throws -> [UInt8] {
        let buffer = try await body.collect(upTo: 1 << 20)
        return Array(buffer.readableBytesView)
    }

    /// The token of exactly one `Authorization: Bearer <token>` header, non-empty and without blanks; nil otherwise. What
    /// every stand-in's API takes, so a bridge that sent two headers or an empty token fails the test as it would fail
    /// the real call.
    var bearerToken: String? {
        let values = headers[values: .authorization]
        guard values.count == 1, values[0].hasPrefix("Bearer ") else { return nil }
        let token = values[0].dropFirst("Bearer ".count)
        guard !token.isEmpty, !token.contains(where: { $0 == " " || $0 == "\t" }) else { return nil }
        return String(token)
    }

    var mediaType: String? {
        headers[.contentType]?.split(separator: ";").first.map { part in
            let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            return String(part.drop(while: isBlank).reversed().drop(while: isBlank).reversed()).lowercased()
        }
    }
}
