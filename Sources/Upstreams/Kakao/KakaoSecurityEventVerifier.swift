import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// Verifies a security event token from Kakao's account status change webhook (docs/api.md#kakaos-security-events):
/// the header, the signature with Kakao's published keys (the key cache Kakao ID tokens use), then the claims, in the
/// order docs/api.md#kakaos-security-events gives; the first rule broken is the answer. The SET's values are never echoed.
package struct KakaoSecurityEventVerifier: Sendable {
    package let rules: SecurityEventClaimRules
    /// Kakao's JWKS behind the one key cache (`PublicKeyCache.kakaoKeys`), shared with Kakao ID tokens.
    package let keys: PublicKeyCache

    package init(rules: SecurityEventClaimRules, keys: PublicKeyCache) {
        self.rules = rules
        self.keys = keys
    }

    /// - Throws: `Verification.rejected` for a SET that breaks a rule (400 with its `err`), `Verification.keysUnavailable`
    ///   when Kakao's keys cannot be had (the SET may be good: the caller answers 503 so that Kakao sends it again).
    package func verify(_ body: [UInt8], context: CallContext) async throws(Verification) -> SecurityEventToken {
        let parsed: Parsed
        do { parsed = try Self.parse(body) } catch { throw .rejected(error) }
        let key: RSAPublicKey?
        do { key = try await keys.key(for: parsed.kid, context: context) } catch { throw .keysUnavailable(error) }
        guard let key else { throw .rejected(SecurityEventRejection(.invalidKey, "The SET's kid names no current key in Kakao's JWKS.")) }
        guard key.verifyRS256(signature: parsed.signature, message: parsed.signingInput) else {
            throw .rejected(SecurityEventRejection(.invalidKey, "The SET's signature is invalid."))
        }
        do { return try rules.check(parsed.payload) } catch { throw .rejected(error) }
    }

    package enum Verification: Error, Sendable {
        case rejected(SecurityEventRejection)
        case keysUnavailable(Problem)
    }

    package struct Parsed: Sendable {
        package var kid: String
        package var payload: JSONValue
        package var signingInput: [UInt8]
        package var signature: [UInt8]
    }

    /// The header rules and the payload's JSON, before any key is looked up. Pure (the fuzz target calls it).
    package static func parse(_ body: [UInt8]) throws(SecurityEventRejection) -> Parsed {
        let text = String(decoding: body, as: UTF8.self).trimmingASCIIWhitespace()
        guard let parts = JWTEncoding.split(text) else {
            let segments = text.split(separator: ".", omittingEmptySubsequences: false)
            if segments.count == 3, !segments[0].isEmpty, segments[2].isEmpty {
                throw SecurityEventRejection(.invalidKey, "The SET is unsigned: alg must be RS256 (alg none is refused).")
            }
            throw SecurityEventRejection(.invalidRequest, "The body is not a JWT: it must be three base64url segments.")
        }
        guard let header = JSONValue.parse(parts.header), case .object = header else {
            throw SecurityEventRejection(.invalidRequest, "The SET's header is not a JSON object.")
        }
        guard header["alg"]?.stringValue == "RS256" else {
            throw SecurityEventRejection(.invalidKey, "The SET's header alg must be RS256.")
        }
        guard let typ = header["typ"]?.stringValue, typ == "secevent+jwt" || typ == "application/secevent+jwt" else {
            throw SecurityEventRejection(.invalidKey, "The SET's header typ must be secevent+jwt.")
        }
        // RFC 7515 §4.1.11: extensions the verifier does not understand must be refused; Kakao sends none.
        guard header["crit"] == nil else {
            throw SecurityEventRejection(.invalidKey, "The SET's header has crit extensions, which are not supported.")
        }
        guard let kid = header["kid"]?.stringValue, !kid.isEmpty else {
            throw SecurityEventRejection(.invalidKey, "The SET's header has no kid.")
        }
        guard let payload = JSONValue.parse(parts.payload), case .object = payload else {
            throw SecurityEventRejection(.invalidRequest, "The SET's payload is not a JSON object.")
        }
        return Parsed(kid: kid, payload: payload, signingInput: parts.signingInput, signature: parts.signature)
    }
}
