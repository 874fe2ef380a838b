import BridgeJSON
import OpenSSLCrypto
import Synchronization

/// Kakao's OpenID Connect signing keys, as `https://kauth.kakao.com/.well-known/jwks.json` publishes them: Kakao signs ID
/// tokens with the current key and keeps the previous ones published after a rotation, so that tokens signed before it
/// still verify. The same shape as `SecureTokenKeys`, with JWKs instead of certificates. Keys are made on first use: a
/// world that never logs in with OpenID Connect pays nothing for them.
public final class KakaoOIDCKeys: Sendable {
    public struct SigningKey: Sendable {
        public let kid: String
        public let privateKey: RSAPrivateKey
    }

    private struct State {
        var current: SigningKey?
        var previous: [SigningKey] = []
    }

    /// How many superseded keys stay published after `rotate()`.
    public let previousKeysKept: Int
    private let state = Mutex(State())

    public init(previousKeysKept: Int = 1) {
        self.previousKeysKept = max(0, previousKeysKept)
    }

    /// A fresh current key; the old one stays published unless `keepingPrevious` is false.
    public func rotate(keepingPrevious: Bool = true) throws {
        let key = try Self.makeKey()
        _ = try currentKey
        state.withLock { state in
            let superseded = state.current.map { [$0] } ?? []
            state.previous = keepingPrevious ? Array((superseded + state.previous).prefix(previousKeysKept)) : []
            state.current = key
        }
    }

    public var currentKey: SigningKey {
        get throws {
            if let key = state.withLock({ $0.current }) { return key }
            let made = try Self.makeKey()
            return state.withLock { state in
                if let key = state.current { return key }
                state.current = made
                return made
            }
        }
    }

    public var currentKID: String { get throws { try currentKey.kid } }

    /// Every published key, current first.
    public var publishedKeys: [SigningKey] {
        get throws {
            let current = try currentKey
            return [current] + state.withLock { $0.previous }
        }
    }

    /// The JWKS document: `{"keys": [{"kid", "kty", "alg", "use", "n", "e"}]}`.
    public func jwksJSON() throws -> JSONValue {
        let keys: [JSONValue] = try publishedKeys.map { key in
            let (n, e) = key.privateKey.publicKey.jwkComponents
            return .object([
                "kid": .string(key.kid), "kty": "RSA", "alg": "RS256", "use": "sig", "n": .string(n), "e": .string(e),
            ])
        }
        return .object(["keys": .array(keys)])
    }

    /// Signs a JWT as `signing` says, with the honest header (`{"kid", "typ": "JWT", "alg"}`) unless one is given verbatim.
    /// `.hs256WithCertificate` keys HS256 with the current public key's PEM: the algorithm-confusion attack.
    public func signIDToken(
        header: [String: any Sendable]? = nil, payload: [String: any Sendable], signing: IDTokenSigning = .current
    ) throws -> String {
        let json = try IDTokenSigning.json(header: header, payload: payload) {
            let alg: String
            var kid = try currentKID
            switch signing {
            case .none: alg = "none"
            case .hs256WithCertificate: alg = "HS256"
            case .kid(let chosen): alg = "RS256"; kid = chosen
            default: alg = "RS256"
            }
            return .object(["kid": .string(kid), "typ": "JWT", "alg": .string(alg)])
        }
        let signingInput = Base64URL.encode(json.header.serialized) + "." + Base64URL.encode(json.payload.serialized)
        let message = Array(signingInput.utf8)
        let current = try currentKey.privateKey
        let published = try publishedKeys
        let signature = try signing.signature(
            over: message, current: current, keyNamed: { kid in published.first { $0.kid == kid }?.privateKey },
            hs256Key: Array(current.publicKey.pem.utf8)
        )
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// The payload Kakao puts into an ID token (Kakao Login with OpenID Connect on): `sub` is the user id as a string,
    /// `aud` the app key the login used; `nickname`, `picture` and `email` as the user agreed to share them (an email only
    /// when valid and verified).
    public static func idTokenPayload(
        for user: KakaoAccount, audience: String, nonce: String?, now: Int64, lifetime: Int64 = 43_199
    ) -> [String: any Sendable] {
        var payload: [String: any Sendable] = [
            "iss": "https://kauth.kakao.com", "aud": audience, "sub": String(user.id), "iat": now, "auth_time": now,
            "exp": now + lifetime,
        ]
        if let nonce { payload["nonce"] = nonce }
        if let nickname = user.nickname { payload["nickname"] = nickname }
        if let picture = user.profileImageURL { payload["picture"] = picture }
        if let email = user.email, user.isEmailValid, user.isEmailVerified { payload["email"] = email }
        return payload
    }

    private static func makeKey() throws -> SigningKey {
        SigningKey(kid: hex(SecureRandom.bytes(count: 16)), privateKey: try RSAPrivateKey.generate(bits: 2048))
    }
}
