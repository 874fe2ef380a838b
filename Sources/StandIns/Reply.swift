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

    var mediaType: String? {
        headers[.contentType]?.split(separator: ";").first.map { part in
            let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            return String(part.drop(while: isBlank).reversed().drop(while: isBlank).reversed()).lowercased()
        }
    }
}
