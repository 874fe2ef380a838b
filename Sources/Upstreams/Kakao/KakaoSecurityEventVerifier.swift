import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// Verifies a security event token from Kakao's account status change webhook (docs/api.md#kakaos-security-events):
/// the header, the signature with Kakao's published keys (the key cache Kakao ID tokens use), then the claims, in the
/// order of CONTRACT §13; the first rule broken is the answer. The SET's values are never echoed.
package struct KakaoSecurityEventVerifier: Sendable {
    package static let issuer = "https://kauth.kakao.com"
    /// The longest `jti` kept: it names the event in the store and in `kakao-bridge unlinks`.
    package static let maxJTILength = 256
    /// More events than this in one SET is not Kakao (it sends one per SET).
    package static let maxEvents = 16

    /// `kakao.events.audiences`.
    package let audiences: Set<String>
    /// `kakao.events.max_age_seconds`.
    package let maxAgeSeconds: Int64
    package let clockSkewSeconds: Int64
    package let keys: PublicKeyCache
    package let clock: UnixClock

    package init(audiences: [String], maxAgeSeconds: Int, clockSkewSeconds: Int, keys: PublicKeyCache, clock: UnixClock) {
        self.audiences = Set(audiences)
        self.maxAgeSeconds = Int64(maxAgeSeconds)
        self.clockSkewSeconds = Int64(min(max(clockSkewSeconds, 0), 60))
        self.keys = keys
        self.clock = clock
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
        do { return try check(parsed.payload) } catch { throw .rejected(error) }
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

    /// The claims of a signed SET, in CONTRACT §13's order. Pure, with the injected clock.
    package func check(_ payload: JSONValue) throws(SecurityEventRejection) -> SecurityEventToken {
        guard payload["iss"]?.stringValue == Self.issuer else {
            throw SecurityEventRejection(.invalidIssuer, "The SET's iss must be \(Self.issuer).")
        }
        guard acceptsAudience(payload["aud"]) else {
            throw SecurityEventRejection(.invalidAudience, "The SET's aud is not one of kakao.events.audiences.")
        }
        guard let iat = payload["iat"]?.int64Value else {
            throw SecurityEventRejection(.invalidRequest, "The SET's iat must be a number of seconds.")
        }
        let now = clock.now()
        guard iat <= now + clockSkewSeconds else {
            throw SecurityEventRejection(.invalidRequest, "The SET was issued in the future (iat).")
        }
        guard now - iat <= maxAgeSeconds + clockSkewSeconds else {
            throw SecurityEventRejection(.invalidRequest, "The SET was issued longer ago than kakao.events.max_age_seconds (iat).")
        }
        guard let jti = payload["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= Self.maxJTILength else {
            throw SecurityEventRejection(.invalidRequest, "The SET's jti must be a non-empty string of at most \(Self.maxJTILength) bytes.")
        }
        guard let members = payload["events"]?.objectValue, !members.isEmpty, members.count <= Self.maxEvents else {
            throw SecurityEventRejection(.invalidRequest, "The SET's events must be an object with 1 to \(Self.maxEvents) members.")
        }
        let setSubject = payload["sub"]?.stringValue.flatMap(KakaoIDTokenClaimRules.kakaoID)
        var events: [SecurityEventToken.Event] = []
        for (type, body) in members.sorted(by: { $0.key < $1.key }) {
            guard case .object = body, !type.isEmpty else {
                throw SecurityEventRejection(.invalidRequest, "Each member of the SET's events must be an object named by its type.")
            }
            guard let kakaoID = Self.subject(of: body) ?? setSubject else {
                throw SecurityEventRejection(
                    .invalidRequest, "The SET names no Kakao user: an event's subject.sub or the SET's sub must be a positive decimal Kakao user id."
                )
            }
            events.append(SecurityEventToken.Event(type: type, kakaoID: kakaoID, reason: body["reason"]?.stringValue))
        }
        return SecurityEventToken(jti: jti, issuedAt: iat, events: events)
    }

    /// `{"subject_type": "iss-sub", "iss": "https://kauth.kakao.com", "sub": "<id>"}`: a subject of another issuer names no
    /// Kakao user.
    private static func subject(of event: JSONValue) -> Int64? {
        guard let subject = event["subject"], case .object = subject else { return nil }
        if let iss = subject["iss"]?.stringValue, iss != issuer { return nil }
        return subject["sub"]?.stringValue.flatMap(KakaoIDTokenClaimRules.kakaoID)
    }

    /// A string, or an array with at least one of ours (RFC 7519 §4.1.3: the recipient must be among them).
    private func acceptsAudience(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let audience): audiences.contains(audience)
        case .array(let members): members.contains { $0.stringValue.map(audiences.contains) ?? false }
        default: false
        }
    }
}
