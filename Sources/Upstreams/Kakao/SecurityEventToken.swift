/// A Kakao security event token (RFC 8417) that passed every rule of docs/api.md#kakaos-security-events: who Kakao says
/// what happened to. Holds no token and no email: the type URIs, the Kakao ids and the unlink reason only.
package struct SecurityEventToken: Sendable, Equatable {
    /// One member of `events`.
    package struct Event: Sendable, Equatable {
        /// The event type's URI, as Kakao wrote it.
        package var type: String
        /// The event's `subject.sub`, else the SET's `sub`.
        package var kakaoID: Int64
        /// The event's `reason`, when it has one (`user-unlinked`: the unlink's referrer type).
        package var reason: String?
    }

    package var jti: String
    package var issuedAt: Int64
    /// In the order of the SET's `events` object, sorted by type so that the same SET always gives the same list.
    package var events: [Event]
}

/// Why a SET was refused: RFC 8935 §2.3's answer, `{"err": <code>, "description": <text>}` with 400. The description
/// never echoes the SET's values.
package struct SecurityEventRejection: Error, Sendable, Equatable {
    /// RFC 8935 §2.4's codes that a receiver of Kakao's SETs can give.
    package enum Code: String, Sendable, CaseIterable {
        /// Wrong content type, not a JWT, a claim missing or of the wrong type, `iat` in the future or too old, no user.
        case invalidRequest = "invalid_request"
        /// Unknown `kid`, bad signature, wrong or missing `alg` or `typ`.
        case invalidKey = "invalid_key"
        case invalidIssuer = "invalid_issuer"
        case invalidAudience = "invalid_audience"
    }

    package let code: Code
    package let description: String

    package init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
