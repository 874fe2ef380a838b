import BridgeJSON

/// The time rules every ID token the service verifies shares (Firebase's and Kakao's): `exp` in the future and `iat`
/// not in the future, each a number of seconds, with the configured clock skew. Returns both times.
package enum JWTTimes {
    @discardableResult
    package static func check(
        _ payload: JSONValue, now: Int64, skew: Int64, invalid: (String) -> Problem
    ) throws(Problem) -> (issuedAt: Int64, expiresAt: Int64) {
        guard let exp = payload["exp"]?.int64Value else { throw invalid("The ID token's exp must be a number of seconds.") }
        guard exp > now - skew else { throw invalid("The ID token has expired (exp).") }
        guard let iat = payload["iat"]?.int64Value else { throw invalid("The ID token's iat must be a number of seconds.") }
        guard iat <= now + skew else { throw invalid("The ID token was issued in the future (iat).") }
        return (iat, exp)
    }
}
