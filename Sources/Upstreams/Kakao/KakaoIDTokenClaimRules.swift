import BridgeJSON
import BridgeSupport

/// The rules of a Kakao ID token's payload that need no key and no network (docs/api.md#kakao-id-tokens): issuer, audience,
/// times with the configured skew, subject, and the profile claims. Pure, with an injectable clock, so that the fuzz
/// target and the tests drive them directly. The nonce has rules of its own (`KakaoNonces`), checked on every use.
package struct KakaoIDTokenClaimRules: Sendable {
    package static let issuer = "https://kauth.kakao.com"

    /// What a valid payload says.
    package struct Claims: Sendable, Equatable {
        package var user: KakaoUser
        package var issuedAt: Int64
        package var expiresAt: Int64
        package var nonce: String?
    }

    /// `kakao.oidc.audiences`: the app keys whose logins are ours.
    package let audiences: Set<String>
    package let clockSkewSeconds: Int64
    package let clock: UnixClock

    package init(audiences: [String], clockSkewSeconds: Int, clock: UnixClock) {
        self.audiences = Set(audiences)
        self.clockSkewSeconds = Int64(min(max(clockSkewSeconds, 0), 60))
        self.clock = clock
    }

    package func check(_ payload: JSONValue) throws(Problem) -> Claims {
        guard case .object = payload else { throw Self.invalid("The ID token's payload is not a JSON object.") }
        guard payload["iss"]?.stringValue == Self.issuer else {
            throw Self.invalid("The ID token's iss must be \(Self.issuer).")
        }
        guard acceptsAudience(payload["aud"]) else {
            throw Self.invalid("The ID token's aud is not one of the app keys in kakao.oidc.audiences.")
        }
        let now = clock.now()
        let (iat, exp) = try JWTTimes.check(payload, now: now, skew: clockSkewSeconds, invalid: Self.invalid)
        guard let id = payload["sub"]?.stringValue.flatMap(Self.kakaoID) else {
            throw Self.invalid("The ID token's sub must be a Kakao user id: a positive decimal number.")
        }
        let nonce: String?
        switch payload["nonce"] {
        case .none, .some(.null): nonce = nil
        case .some(.string(let value)): nonce = value
        case .some: throw Self.invalid("The ID token's nonce must be a string.")
        }
        return Claims(user: Self.profile(id: id, payload), issuedAt: iat, expiresAt: exp, nonce: nonce)
    }

    /// A string, or (as OpenID Connect allows) a non-empty array of them, every one of them ours.
    private func acceptsAudience(_ value: JSONValue?) -> Bool {
        switch value {
        case .string(let audience): return audiences.contains(audience)
        case .array(let members):
            return !members.isEmpty && members.allSatisfy { member in member.stringValue.map { audiences.contains($0) } ?? false }
        default: return false
        }
    }

    /// `sub` as Kakao writes it: 1 to 19 ASCII digits, no sign, no leading zero, above zero, exact in 64 bits.
    package static func kakaoID(_ text: String) -> Int64? {
        let digits = text.utf8
        guard (1...19).contains(digits.count), digits.first != UInt8(ascii: "0"),
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let id = Int64(text), id > 0 else { return nil }
        return id
    }

    /// `nickname`, `picture` and `email`. Kakao puts an email into the ID token only when it is valid and verified, so one
    /// present counts as verified (docs/api.md#kakao-id-tokens). Claims of another type are left out, not refused: the
    /// profile is decoration, the identity is `sub`.
    package static func profile(id: Int64, _ payload: JSONValue) -> KakaoUser {
        let email = payload["email"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        return KakaoUser(
            id: id, nickname: payload["nickname"]?.stringValue, email: email, emailVerified: email == nil ? nil : true,
            profileImageURL: payload["picture"]?.stringValue.map(secureImageURL)
        )
    }

    /// The access-token path asks Kakao for `https://` image URLs (`secure_resource=true`); an ID token's picture may be
    /// plain HTTP on Kakao's CDN, which serves the same path over https (iOS refuses plain-HTTP images).
    package static func secureImageURL(_ url: String) -> String {
        guard url.hasPrefix("http://") else { return url }
        let host = url.dropFirst(7).prefix { $0 != "/" && $0 != ":" && $0 != "?" }
        return host.hasSuffix(".kakaocdn.net") ? "https://" + url.dropFirst(7) : url
    }

    package static func invalid(_ detail: String) -> Problem { Problem.invalidKakaoIDToken(detail) }
}
