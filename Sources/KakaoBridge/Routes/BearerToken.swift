import Hummingbird
import Upstreams

/// Reads `Authorization: Bearer <token>`: the one way the service accepts credentials.
enum BearerToken {
    static func from(_ request: Request) throws(Problem) -> String {
        switch AuthorizationHeader.read(request, scheme: .bearer) {
        case .missing:
            throw Problem.missingToken()
        case .otherScheme:
            throw Problem.missingToken("The Authorization header is not `Bearer <token>`.")
        case .credentials(let token):
            try validate(token)
            return token
        }
    }

    /// Token characters are those of RFC 6750's b64token; anything else is not a token and is not sent upstream.
    static func validate(_ token: String) throws(Problem) {
        guard !token.isEmpty else { throw Problem.missingToken() }
        guard token.utf8.count <= RequestLimits.maxTokenBytes else {
            throw Problem.invalidRequest("The token is longer than \(RequestLimits.maxTokenBytes) bytes.")
        }
        let allowed = token.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
                || byte == UInt8(ascii: "=")
        }
        guard allowed else { throw Problem.invalidRequest("The token contains characters a token cannot have.") }
    }
}
