import BridgeJSON
import OpenSSLCrypto
import Synchronization

/// The "securetoken@system" signing keys: Google signs Firebase ID tokens with the current one and keeps
/// publishing the previous ones so tokens signed before a rotation still verify.
public final class SecureTokenKeys: Sendable {
    public struct SigningKey: Sendable {
        public let kid: String
        public let privateKey: RSAPrivateKey
        public let certificatePEM: String
    }

    private struct State {
        var current: SigningKey
        var previous: [SigningKey]
    }

    /// How many superseded keys stay published after `rotate()`.
    public let previousKeysKept: Int
    private let state: Mutex<State>

    public init(previousKeysKept: Int = 1) throws {
        self.previousKeysKept = max(0, previousKeysKept)
        self.state = Mutex(State(current: try Self.makeKey(), previous: []))
    }

    /// A fresh current key; the old one stays published unless `keepingPrevious` is false.
    public func rotate(keepingPrevious: Bool = true) throws {
        let key = try Self.makeKey()
        state.withLock { state in
            state.previous = keepingPrevious ? Array(([state.current] + state.previous).prefix(previousKeysKept)) : []
            state.current = key
        }
    }

    public var currentKID: String { state.withLock { $0.current.kid } }
    public var currentKey: SigningKey { state.withLock { $0.current } }
    /// Every published key, current first.
    public var publishedKeys: [SigningKey] { state.withLock { [$0.current] + $0.previous } }

    /// kid → X.509 PEM, the body of Google's certificate endpoint.
    public func certificatesJSON() -> [String: String] {
        var certificates: [String: String] = [:]
        for key in publishedKeys {
            certificates[key.kid] = key.certificatePEM
        }
        return certificates
    }

    /// Signs a JWT the way `signing` says. With `header` nil the header is the honest one for that
    /// signing (`{"alg": …, "kid": <current kid>, "typ": "JWT"}`); a given header is used verbatim, so
    /// tests can drop or change `kid` and `alg`.
    public func signIDToken(
        header: [String: any Sendable]? = nil,
        payload: [String: any Sendable],
        signing: IDTokenSigning = .current
    ) throws -> String {
        let json = try IDTokenSigning.json(header: header, payload: payload) { .object(defaultHeader(for: signing)) }
        return try sign(headerJSON: json.header.serialized, payloadJSON: json.payload.serialized, signing: signing)
    }

    /// The raw form: arbitrary header and payload bytes (duplicate keys, invalid JSON, …).
    public func sign(headerJSON: [UInt8], payloadJSON: [UInt8], signing: IDTokenSigning = .current) throws -> String {
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
        let message = Array(signingInput.utf8)
        let signature = try signing.signature(
            over: message, current: currentKey.privateKey, keyNamed: { kid in publishedKeys.first { $0.kid == kid }?.privateKey },
            hs256Key: Array(currentKey.certificatePEM.utf8)
        )
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The payload Google puts in an ID token after `signInWithCustomToken`; custom claims sit at top level.
    public static func idTokenPayload(
        projectID: String,
        uid: String,
        now: Int64,
        lifetime: Int64 = 3600,
        tenantID: String? = nil,
        customClaims: [String: any Sendable] = [:]
    ) -> [String: any Sendable] {
        var firebase: [String: any Sendable] = [
            "identities": [String: any Sendable](),
            "sign_in_provider": "custom",
        ]
        if let tenantID {
            firebase["tenant"] = tenantID
        }
        var payload = customClaims
        payload["iss"] = "https://securetoken.google.com/\(projectID)"
        payload["aud"] = projectID
        payload["auth_time"] = now
        payload["user_id"] = uid
        payload["sub"] = uid
        payload["iat"] = now
        payload["exp"] = now + lifetime
        payload["firebase"] = firebase
        return payload
    }

    private func defaultHeader(for signing: IDTokenSigning) -> [String: JSONValue] {
        let alg: String
        let kid: String
        switch signing {
        case .none: alg = "none"; kid = currentKID
        case .hs256WithCertificate: alg = "HS256"; kid = currentKID
        case .kid(let chosen): alg = "RS256"; kid = chosen
        default: alg = "RS256"; kid = currentKID
        }
        return ["alg": .string(alg), "kid": .string(kid), "typ": .string("JWT")]
    }

    private static func makeKey() throws -> SigningKey {
        let key = try RSAPrivateKey.generate(bits: 2048)
        let certificate = try X509Certificate.selfSigned(
            key: key,
            commonName: "securetoken.system.gserviceaccount.com",
            validity: .seconds(14 * 24 * 3600)
        )
        return SigningKey(kid: hex(SecureRandom.bytes(count: 20)), privateKey: key, certificatePEM: certificate)
    }
}

/// How `SecureTokenKeys` signs a token: honestly, or in one of the ways an attacker would try.
public enum IDTokenSigning: Sendable {
    /// RS256 with the current key.
    case current
    /// RS256 with a published key (current or previous) named by kid.
    case kid(String)
    /// RS256 with a fresh key nobody published: the signature cannot verify.
    case unpublishedKey
    /// RS256 with a key of the caller's choosing.
    case privateKey(RSAPrivateKey)
    /// RS256 with the current key, one bit of the signature flipped.
    case corruptedSignature
    /// `alg: none` with an empty signature.
    case none
    /// HS256 keyed with the current certificate PEM, the classic algorithm-confusion attack.
    case hs256WithCertificate
}

extension IDTokenSigning {
    /// The payload as JSON, and the header: the one given, verbatim, or else `defaultHeader()`. Shared by both stand-in
    /// key sets, whose tests drop or change `kid` and `alg` by giving a header.
    static func json(
        header: [String: any Sendable]?, payload: [String: any Sendable], defaultHeader: () throws -> JSONValue
    ) throws -> (header: JSONValue, payload: JSONValue) {
        guard let payloadValue = JSONValue(any: payload) else { throw IDTokenSigningError.notJSON("payload") }
        guard let header else { return (try defaultHeader(), payloadValue) }
        guard let headerValue = JSONValue(any: header) else { throw IDTokenSigningError.notJSON("header") }
        return (headerValue, payloadValue)
    }

    /// The signature segment's bytes for `message`: one switch for every stand-in that signs ID tokens (Google's
    /// securetoken keys, Kakao's OpenID Connect keys). `hs256Key` is the public material an attacker would key HS256 with.
    func signature(
        over message: [UInt8], current: RSAPrivateKey, keyNamed: (String) -> RSAPrivateKey?, hs256Key: [UInt8]
    ) throws -> [UInt8] {
        switch self {
        case .current:
            return try current.signRS256(message)
        case .kid(let kid):
            guard let key = keyNamed(kid) else { throw IDTokenSigningError.unknownKID }
            return try key.signRS256(message)
        case .unpublishedKey:
            return try RSAPrivateKey.generate(bits: 2048).signRS256(message)
        case .privateKey(let key):
            return try key.signRS256(message)
        case .corruptedSignature:
            var bytes = try current.signRS256(message)
            bytes[bytes.count / 2] ^= 0x01
            return bytes
        case .none:
            return []
        case .hs256WithCertificate:
            return HMACSHA256.authenticate(key: hs256Key, message: message)
        }
    }
}

public enum IDTokenSigningError: Error, Sendable {
    case notJSON(String)
    case unknownKID
}
