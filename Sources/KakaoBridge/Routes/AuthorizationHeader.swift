import BridgeSupport
import Hummingbird
import OpenSSLCrypto
import Upstreams

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

    /// Spaces before the scheme are skipped; the scheme ends at the first space after it. Read over the header's bytes,
    /// so that the token, a few hundred bytes on every login, is copied once.
    static func read(_ request: Request, scheme: Scheme) -> Reading {
        guard let header = request.headers[.authorization] else { return .missing }
        let bytes = header.utf8
        let space = UInt8(ascii: " ")
        guard let schemeStart = bytes.firstIndex(where: { $0 != space }),
              let schemeEnd = bytes[schemeStart...].firstIndex(of: space),
              isScheme(bytes[schemeStart..<schemeEnd], scheme)
        else { return .otherScheme }
        let rest = bytes.index(after: schemeEnd)
        guard rest < bytes.endIndex else { return .otherScheme }
        return .credentials(String(header[rest...].trimmingSpaces()))
    }

    /// ASCII case-insensitive (RFC 9110 §11.1); `Scheme`'s raw values are lower case.
    private static func isScheme(_ name: Substring.UTF8View, _ scheme: Scheme) -> Bool {
        name.elementsEqual(scheme.rawValue.utf8) { byte, lower in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == lower
        }
    }

    /// Whether the request carries exactly `secret` under `scheme`, compared in constant time; an empty secret matches
    /// nothing.
    static func carries(_ request: Request, scheme: Scheme, secret: [UInt8]) -> Bool {
        guard !secret.isEmpty, case .credentials(let offered) = read(request, scheme: scheme) else { return false }
        return constantTimeEquals(Array(offered.utf8), secret)
    }

    /// Whether the request carries any of `secrets` under `scheme` (a secret being rotated: docs/configuration.md#rotating-the-hook-secret).
    /// Every one is compared, in constant time, whichever matches: the time taken does not say which one did.
    static func carries(_ request: Request, scheme: Scheme, anyOf secrets: [[UInt8]]) -> Bool {
        guard case .credentials(let credentials) = read(request, scheme: scheme) else { return false }
        let offered = Array(credentials.utf8)
        var matched = false
        for secret in secrets where !secret.isEmpty {
            // The comparison first: `||` would skip it once a secret has matched.
            matched = constantTimeEquals(offered, secret) || matched
        }
        return matched
    }
}

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
        // Over the bytes in place, with the bitmap read once: a token is a few hundred to a few thousand bytes, and
        // reading a global's lazily initialised value costs a call per byte.
        let map = tokenBytes
        var token = token
        let valid = token.withUTF8 { bytes in bytes.allSatisfy { isTokenByte($0, in: map) } }
        guard valid else { throw Problem.invalidRequest("The token contains characters a token cannot have.") }
    }

    /// b64token's characters as a bitmap of the 128 ASCII bytes: one test per byte of a token of up to a few KiB.
    private static let tokenBytes: (low: UInt64, high: UInt64) = {
        var low: UInt64 = 0, high: UInt64 = 0
        for byte in Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._~+/=".utf8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }
        return (low, high)
    }()

    static func isTokenByte(_ byte: UInt8) -> Bool { isTokenByte(byte, in: tokenBytes) }

    private static func isTokenByte(_ byte: UInt8, in map: (low: UInt64, high: UInt64)) -> Bool {
        byte < 64 ? map.low & (1 << UInt64(byte)) != 0 : byte < 128 && map.high & (1 << UInt64(byte - 64)) != 0
    }
}
