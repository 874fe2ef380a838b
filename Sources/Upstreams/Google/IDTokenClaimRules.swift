import BridgeJSON
import BridgeSupport

/// The ID-token rules that need no key and no network (docs/custom-token.md#id-token-rules): audience, issuer,
/// subject, times with the configured skew, tenant. Pure, so that the fuzz target and the tests drive them directly.
package struct IDTokenClaimRules: Sendable {
    package let projectID: String
    /// `nil` when `firebase.tenant_id` is empty.
    package let tenantID: String?
    package let clockSkewSeconds: Int64
    package let clock: UnixClock

    package init(projectID: String, tenantID: String?, clockSkewSeconds: Int, clock: UnixClock) {
        self.projectID = projectID
        self.tenantID = (tenantID?.isEmpty ?? true) ? nil : tenantID
        self.clockSkewSeconds = Int64(min(max(clockSkewSeconds, 0), 60))
        self.clock = clock
    }

    package var issuer: String { "https://securetoken.google.com/" + projectID }

    /// The payload rules that follow a valid signature.
    package func check(_ payload: JSONValue) throws(Problem) {
        guard payload["aud"]?.stringValue == projectID else {
            throw Self.invalid("The ID token's aud must be the Firebase project id (\(projectID)).")
        }
        guard payload["iss"]?.stringValue == issuer else {
            throw Self.invalid("The ID token's iss must be \(issuer).")
        }
        guard let subject = payload["sub"]?.stringValue, !subject.isEmpty, subject.utf16.count <= 128 else {
            throw Self.invalid("The ID token's sub must be a non-empty string of at most 128 characters.")
        }
        let now = clock.now()
        try JWTTimes.check(payload, now: now, skew: clockSkewSeconds, invalid: Self.invalid)
        if let authTimeValue = payload["auth_time"] {
            guard let authTime = authTimeValue.int64Value else {
                throw Self.invalid("The ID token's auth_time must be a number of seconds.")
            }
            guard authTime <= now + clockSkewSeconds else {
                throw Self.invalid("The ID token's auth_time is in the future.")
            }
        }
        if let tenantID {
            guard payload["firebase"]?["tenant"]?.stringValue == tenantID else {
                throw Self.invalid("The ID token's firebase.tenant must be the configured tenant (\(tenantID)).")
            }
        }
    }

    private static func invalid(_ detail: String) -> Problem { Problem.invalidIDToken(detail) }
}
