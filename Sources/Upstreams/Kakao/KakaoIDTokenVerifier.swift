import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// Verifies a Kakao ID token's header and signature against Kakao's published keys, then its claims
/// (`KakaoIDTokenClaimRules`); one rule at a time in a fixed order, the first broken one is the `invalid_kakao_id_token`
/// detail (docs/api.md#kakao-id-tokens). Details never echo the token's values.
package struct KakaoIDTokenVerifier: Sendable {
    package let rules: KakaoIDTokenClaimRules
    /// Kakao's JWKS behind the one key cache (`PublicKeyCache.kakaoKeys`).
    package let keys: PublicKeyCache

    package init(rules: KakaoIDTokenClaimRules, keys: PublicKeyCache) {
        self.rules = rules
        self.keys = keys
    }

    package func verify(_ token: String, context: CallContext) async throws(Problem) -> KakaoIDTokenClaimRules.Claims {
        try await verify(parsed: Self.parse(token), context: context)
    }

    /// The key, the signature and the claims of a token `parse` has read: a caller that needs the payload itself parses
    /// once.
    package func verify(parsed: Parsed, context: CallContext) async throws(Problem) -> KakaoIDTokenClaimRules.Claims {
        guard let key = try await keys.key(for: parsed.kid, context: context) else {
            throw KakaoIDTokenClaimRules.invalid("The ID token's kid names no current key in Kakao's JWKS.")
        }
        // The algorithm is ours: RS256 with an RSA key from Kakao's JWKS. The header only had to agree (`parse`).
        guard key.verifyRS256(signature: parsed.signature, message: parsed.signingInput) else {
            throw KakaoIDTokenClaimRules.invalid("The ID token's signature is invalid.")
        }
        return try rules.check(parsed.payload)
    }

    /// The header rules and the payload's JSON, before any key is looked up. Pure (the fuzz target calls it).
    package typealias Parsed = (kid: String, payload: JSONValue, signingInput: [UInt8], signature: [UInt8])

    package static func parse(_ token: String) throws(Problem) -> Parsed {
        let parts = try JWTEncoding.splitRS256(token, invalid: KakaoIDTokenClaimRules.invalid)
        let header = parts.header
        // RFC 7515 §4.1.11: extensions the verifier does not understand must be refused; Kakao sends none.
        guard header["crit"] == nil else {
            throw KakaoIDTokenClaimRules.invalid("The ID token's header has crit extensions, which are not supported.")
        }
        // A Kakao-signed JWT of another kind (a security event, `secevent+jwt`) is no login (docs/api.md#kakao-id-tokens).
        if let typ = header["typ"] {
            guard let text = typ.stringValue, ["jwt", "application/jwt"].contains(text.lowercased()) else {
                throw KakaoIDTokenClaimRules.invalid("The ID token's header typ must be JWT (or absent).")
            }
        }
        // `jwk`, `jku`, `x5u`, `x5c` in the header are ignored: keys come from the configured JWKS URL only.
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else {
            throw KakaoIDTokenClaimRules.invalid("The ID token's header has no kid.")
        }
        guard let payload = JSONValue.parse(parts.payload), case .object = payload else {
            throw KakaoIDTokenClaimRules.invalid("The ID token's payload is not a JSON object.")
        }
        return (kid, payload, parts.signingInput, parts.signature)
    }
}
