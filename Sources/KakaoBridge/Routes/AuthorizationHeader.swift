import BridgeSupport
import Hummingbird
import OpenSSLCrypto

/// The one reader of `Authorization: <scheme> <credentials>` (RFC 9110 §11.6.2): the app's Kakao token and the backend's
/// hook secret come as `Bearer`, Kakao's webhook proves itself with `KakaoAK <admin key>`. The scheme is
/// case-insensitive; spaces and tabs around the credentials are not part of them.
enum AuthorizationHeader {
    enum Scheme: String, Sendable {
        case bearer
        case kakaoAK = "kakaoak"
    }

    enum Reading: Equatable {
        case missing
        /// Present, but not `<scheme> <credentials>` with this scheme.
        case otherScheme
        case credentials(String)
    }

    static func read(_ request: Request, scheme: Scheme) -> Reading {
        guard let header = request.headers[.authorization] else { return .missing }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == scheme.rawValue else { return .otherScheme }
        return .credentials(String(parts[1]).trimmingSpaces())
    }

    /// Whether the request carries exactly `secret` under `scheme`, compared in constant time; an empty secret matches
    /// nothing.
    static func carries(_ request: Request, scheme: Scheme, secret: [UInt8]) -> Bool {
        guard !secret.isEmpty, case .credentials(let offered) = read(request, scheme: scheme) else { return false }
        return constantTimeEquals(Array(offered.utf8), secret)
    }
}
