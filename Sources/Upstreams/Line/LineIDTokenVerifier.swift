import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// Verifies a LINE ID token locally, with no call per login (docs/api.md#line-id-tokens): ES256 with a `kid` of LINE's
/// JWKS (native apps, the LINE SDK, LIFF), or HS256 keyed with the channel secret (LINE's web login; refused when no
/// secret is configured); any other `alg` is refused. Then the claims (`LineIDTokenClaimRules`). One rule at a time in a
/// fixed order; the first broken one is the `invalid_line_id_token` detail, which never echoes the token's values.
package struct LineIDTokenVerifier: Sendable {
    package let rules: LineIDTokenClaimRules
    /// LINE's JWKS behind the one key cache (`KeyCache.lineKeys`).
    package let keys: KeyCache<P256PublicKey>
    /// `line.channel_secret`; nil: HS256 tokens are refused.
    private let channelSecret: [UInt8]?

    package init(rules: LineIDTokenClaimRules, keys: KeyCache<P256PublicKey>, channelSecret: String) {
        self.rules = rules
        self.keys = keys
        self.channelSecret = channelSecret.isEmpty ? nil : Array(channelSecret.utf8)
    }

    /// How the token is signed, as its header says (and as nothing else may).
    package enum Signing: Sendable, Equatable {
        case es256(kid: String)
        case hs256
    }

    package typealias Parsed = (signing: Signing, payload: JSONValue, signingInput: [UInt8], signature: [UInt8])

    /// docs/api.md#line-id-tokens: LINE's v2.1 access tokens are JWT-shaped too, so a Bearer value is an ID token only
    /// when it is three base64url segments whose payload is a JSON object with LINE's `iss`; by the issuer, not by the dots.
    /// An empty signature still makes three segments: an unsigned token (`alg: none`) with LINE's issuer is an ID token,
    /// refused as one, not an access token sent to LINE.
    package static func isIDToken(_ bearer: String) -> Bool {
        let segments = bearer.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard segments.count == 3, !segments[0].isEmpty, segments[1].utf8.count <= 8192,
              let bytes = Base64URL.decode(String(segments[1])), let payload = JSONValue.parse(bytes), case .object = payload
        else { return false }
        return payload["iss"]?.stringValue == LineIDTokenClaimRules.issuer
    }

    package func verify(_ token: String, context: CallContext) async throws(Problem) -> VerifiedProviderToken<LineUser> {
        let parsed = try Self.parse(token)
        switch parsed.signing {
        case .es256(let kid):
            guard let key = try await keys.key(for: kid, context: context) else {
                throw LineIDTokenClaimRules.invalid("The ID token's kid names no current key in LINE's JWKS.")
            }
            guard key.verifyES256(signature: parsed.signature, message: parsed.signingInput) else {
                throw LineIDTokenClaimRules.invalid("The ID token's signature is invalid.")
            }
        case .hs256:
            guard let channelSecret else {
                throw LineIDTokenClaimRules.invalid("The ID token is HS256 (LINE's web login), which needs line.channel_secret; none is configured.")
            }
            let expected = HMACSHA256.authenticate(key: channelSecret, message: parsed.signingInput)
            guard constantTimeEquals(parsed.signature, expected) else {
                throw LineIDTokenClaimRules.invalid("The ID token's signature is invalid.")
            }
        }
        return try rules.check(parsed.payload)
    }

    /// The header rules and the payload's JSON, before any key is looked up. Pure (the fuzz target calls it).
    package static func parse(_ token: String) throws(Problem) -> Parsed {
        let invalid = LineIDTokenClaimRules.invalid
        guard let parts = JWTEncoding.split(token) else {
            // `alg: none` tokens end in an empty signature segment; name the rule they actually break.
            let segments = token.split(separator: ".", omittingEmptySubsequences: false)
            if segments.count == 3, !segments[0].isEmpty, segments[2].isEmpty {
                throw invalid("The ID token is unsigned: alg must be ES256 or HS256 (alg none is refused).")
            }
            throw invalid("The ID token is not a JWT: it must be three base64url segments.")
        }
        guard let header = JSONValue.parse(parts.header), case .object = header else {
            throw invalid("The ID token's header is not a JSON object.")
        }
        guard header["crit"] == nil else { throw invalid("The ID token's header has crit extensions, which are not supported.") }
        if let typ = header["typ"] {
            guard let text = typ.stringValue, ["jwt", "application/jwt"].contains(text.lowercased()) else {
                throw invalid("The ID token's header typ must be JWT (or absent).")
            }
        }
        let signing: Signing
        switch header["alg"]?.stringValue {
        case "ES256":
            guard let kid = header["kid"]?.stringValue, !kid.isEmpty else { throw invalid("The ID token's header has no kid.") }
            guard parts.signature.count == 64 else { throw invalid("The ID token's signature is invalid.") }
            signing = .es256(kid: kid)
        case "HS256":
            signing = .hs256
        default:
            throw invalid("The ID token's header alg must be ES256 or HS256.")
        }
        guard let payload = JSONValue.parse(parts.payload), case .object = payload else {
            throw invalid("The ID token's payload is not a JSON object.")
        }
        return (signing, payload, parts.signingInput, parts.signature)
    }
}
