import BridgeJSON
import BridgeSupport

/// The rules of a Kakao SET's payload that need no key and no network (docs/api.md#kakaos-security-events): issuer,
/// audience, `iat` with the configured skew and `kakao.events.max_age_seconds`, `jti`, the events and their user. Pure,
/// with an injectable clock, so that the fuzz target and the tests drive them directly.
package struct SecurityEventClaimRules: Sendable {
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
    package let clock: UnixClock

    package init(audiences: [String], maxAgeSeconds: Int, clockSkewSeconds: Int, clock: UnixClock) {
        self.audiences = Set(audiences)
        self.maxAgeSeconds = Int64(maxAgeSeconds)
        self.clockSkewSeconds = Int64(min(max(clockSkewSeconds, 0), 60))
        self.clock = clock
    }

    /// The claims of a signed SET, in the order of docs/api.md#kakaos-security-events. Pure, with the injected clock.
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
