import BridgeJSON
import BridgeSupport

/// The rules of a LINE ID token's payload that need no key and no network (docs/api.md#line-id-tokens): issuer, audience
/// (our channel), times with the configured skew, subject (`U` and 32 lowercase hex digits), and the profile claims.
/// Pure, with an injectable clock (the fuzz target and the tests drive them directly).
package struct LineIDTokenClaimRules: Sendable {
    package static let issuer = "https://access.line.me"

    /// `line.channel_id`.
    package let channelID: String
    package let clockSkewSeconds: Int64
    package let clock: UnixClock

    package init(channelID: String, clockSkewSeconds: Int, clock: UnixClock) {
        self.channelID = channelID
        self.clockSkewSeconds = Int64(min(max(clockSkewSeconds, 0), 60))
        self.clock = clock
    }

    /// The user, and the seconds until `exp`.
    package func check(_ payload: JSONValue) throws(Problem) -> VerifiedProviderToken<LineUser> {
        guard case .object = payload else { throw Self.invalid("The ID token's payload is not a JSON object.") }
        guard payload["iss"]?.stringValue == Self.issuer else { throw Self.invalid("The ID token's iss must be \(Self.issuer).") }
        guard acceptsAudience(payload["aud"]) else { throw Self.invalid("The ID token's aud is not this service's LINE channel (line.channel_id).") }
        let now = clock.now()
        let (_, exp) = try JWTTimes.check(payload, now: now, skew: clockSkewSeconds, invalid: Self.invalid)
        guard let sub = payload["sub"]?.stringValue, LineUser.isUserID(sub) else {
            throw Self.invalid("The ID token's sub must be a LINE user id: U and 32 lowercase hexadecimal digits.")
        }
        // The profile is decoration, the identity is `sub`: a claim of another type is left out, not refused.
        let email = payload["email"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        let user = LineUser(id: sub, displayName: payload["name"]?.stringValue, pictureURL: payload["picture"]?.stringValue, email: email)
        return VerifiedProviderToken(user: user, expiresIn: exp - now)
    }

    /// A string, or (as OpenID Connect allows) a non-empty array of them, every one of them our channel.
    private func acceptsAudience(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let audience): audience == channelID
        case .array(let members): !members.isEmpty && members.allSatisfy { $0.stringValue == channelID }
        default: false
        }
    }

    package static func invalid(_ detail: String) -> Problem { Problem.invalidLineIDToken(detail) }
}
