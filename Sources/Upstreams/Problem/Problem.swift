import BridgeSupport
import HTTPTypes

/// Every failure the service reports: one of the codes of docs/errors.md#codes, rendered as `application/problem+json`.
///
/// The code set is closed on purpose, as in jwt-kit: callers and tests match on `code` (`Problem.Code`, public), while
/// only the factories below make a problem, so a new failure shape cannot appear by accident.
public struct Problem: Error, Sendable, CustomStringConvertible {
    /// What failed, one of the closed set of docs/errors.md#codes: match on it, never on `detail`.
    public let code: Code
    /// Human-readable explanation; never contains a token, secret or email.
    public let detail: String
    /// Extra members of the problem body (e.g. `login` for `backend_rejected`).
    public var login: LoginResult?
    /// Seconds for `Retry-After` (rate limiting).
    public var retryAfterSeconds: Int?
    /// Methods for `Allow` (405).
    public var allow: [String] = []
    /// What an upstream said beyond its code (Google's `error_description`): for the operator's log line, never for the
    /// problem body, since the app user is anonymous (docs/errors.md#problem-body).
    public var upstreamMessage: String?
    /// Set only by `asUnlinkFailure()`: the webhook answers 503 whatever step failed.
    private var statusOverride: HTTPResponse.Status?

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var status: HTTPResponse.Status { statusOverride ?? code.status }
    public var title: String { code.title }
    public var description: String { "\(code.rawValue): \(detail)" }

    public static func invalidRequest(_ detail: String) -> Problem { Problem(.invalidRequest, detail) }
    public static func notFound(_ detail: String = "No such route.") -> Problem { Problem(.notFound, detail) }
    public static func methodNotAllowed(allow: [String]) -> Problem {
        var problem = Problem(.methodNotAllowed, "This route accepts \(allow.joined(separator: ", ")).")
        problem.allow = allow
        return problem
    }
    public static func payloadTooLarge(limit: Int) -> Problem { Problem(.payloadTooLarge, "The body exceeds \(limit) bytes.") }
    public static func missingToken(_ detail: String = "Send the token as `Authorization: Bearer <token>`.") -> Problem {
        Problem(.missingToken, detail)
    }
    public static func invalidKakaoToken(_ detail: String) -> Problem { Problem(.invalidKakaoToken, detail) }
    public static func kakaoAppMismatch() -> Problem {
        Problem(.kakaoAppMismatch, "The Kakao token was issued to another Kakao app.")
    }
    public static func invalidIDToken(_ detail: String) -> Problem { Problem(.invalidIDToken, detail) }
    public static func tokenMismatch() -> Problem {
        Problem(.tokenMismatch, "The Firebase ID token and the Kakao token belong to different users.")
    }
    public static func unauthorized(_ detail: String = "Missing or wrong hook secret.") -> Problem { Problem(.unauthorized, detail) }
    public static func rateLimited(retryAfterSeconds: Int, detail: String? = nil) -> Problem {
        var problem = Problem(.rateLimited, detail ?? "Too many requests from this client; retry after \(retryAfterSeconds) s.")
        problem.retryAfterSeconds = retryAfterSeconds
        return problem
    }
    public static func kakaoUnavailable(_ detail: String) -> Problem { Problem(.kakaoUnavailable, detail) }
    public static func kakaoQuotaExceeded() -> Problem {
        Problem(.kakaoQuotaExceeded, "Kakao reports that the app's API quota is exceeded (code -10).")
    }
    public static func firebaseRejected(_ detail: String) -> Problem { Problem(.firebaseRejected, detail) }
    public static func firebaseUnavailable(_ detail: String) -> Problem { Problem(.firebaseUnavailable, detail) }
    public static func backendRejected(_ login: LoginResult) -> Problem {
        var problem = Problem(.backendRejected, "The backend answered \(login.status).")
        problem.login = login
        return problem
    }
    /// The backend refused the unlink notice (docs/api.md#kakaos-unlink-webhook).
    public static func backendNoticeRejected(status: Int) -> Problem {
        Problem(.backendRejected, "The backend answered \(status) to the notice.")
    }
    public static func backendUnavailable(_ detail: String) -> Problem { Problem(.backendUnavailable, detail) }
    public static func upstreamTimeout(_ upstream: String) -> Problem {
        Problem(.upstreamTimeout, "\(upstream) did not answer within the deadline.")
    }
    public static func notReady(_ detail: String) -> Problem { Problem(.notReady, detail) }
    /// The Firebase user is disabled (docs/errors.md#codes): no custom token is minted for them, on any route.
    public static func userDisabled() -> Problem {
        Problem(.userDisabled, "The Firebase user is disabled.")
    }
    /// `hook.check_revoked`: the ID token's session began before the user's `validSince`.
    public static func idTokenRevoked() -> Problem {
        Problem(.idTokenRevoked, "The Firebase ID token has been revoked (its session began before the user's tokens were revoked).")
    }
    /// Google's token endpoint or the Admin API answered 4xx; `detail` carries Google's code.
    public static func firebaseAdminRejected(_ detail: String) -> Problem { Problem(.firebaseAdminRejected, detail) }
    /// Google's token endpoint or the Admin API answered 5xx or could not be reached.
    public static func firebaseAdminUnavailable(_ detail: String) -> Problem { Problem(.firebaseAdminUnavailable, detail) }
    /// Linking by email (docs/api.md#linking-to-an-existing-firebase-account) found the email's Firebase user already
    /// linked to another Kakao user.
    public static func accountConflict() -> Problem {
        Problem(.accountConflict, "The Firebase account with this verified email is already linked to another Kakao user.")
    }
    /// The unlink webhook's failure (docs/api.md#kakaos-unlink-webhook): the failing step's code and detail, as 503, so
    /// that Kakao records a failure rather than the service's upstreams' 502 or 504.
    public func asUnlinkFailure() -> Problem {
        var problem = self
        problem.statusOverride = .serviceUnavailable
        return problem
    }
    /// A Kakao OpenID Connect ID token broke a rule of docs/api.md#kakao-id-tokens; `detail` names the rule.
    public static func invalidKakaoIDToken(_ detail: String) -> Problem { Problem(.invalidKakaoIDToken, detail) }
    /// The state store (docs/operations.md#shared-state) cannot be reached or answered an error; nothing falls back to
    /// memory.
    public static func stateUnavailable(_ detail: String = "The state store cannot be reached; retry shortly.") -> Problem {
        Problem(.stateUnavailable, detail)
    }
    /// Keyless signing (docs/api.md#keyless-signing-on-google-cloud): the IAM Credentials API or the metadata server
    /// answered 4xx; `detail` carries Google's status and, for 403, the role the account lacks.
    public static func iamRejected(_ detail: String) -> Problem { Problem(.iamRejected, detail) }
    /// Keyless signing: the IAM Credentials API or the metadata server answered 5xx or could not be reached, after one retry.
    public static func iamUnavailable(_ detail: String) -> Problem { Problem(.iamUnavailable, detail) }
    /// An access token that could not be had is the failure of what needed it (docs/errors.md#keyless-signing): the
    /// Admin API's `firebase_admin_*` (how `AccessTokenCache` reports it) becomes `iam_*` when the token was for signing.
    /// The detail stays: it names the metadata server or the token endpoint that failed.
    package func asSigningFailure() -> Problem {
        var problem = self
        switch code {
        case .firebaseAdminRejected: problem = Problem(.iamRejected, detail)
        case .firebaseAdminUnavailable: problem = Problem(.iamUnavailable, detail)
        default: return self
        }
        problem.upstreamMessage = upstreamMessage
        return problem
    }
    /// Naver's `resultcode` 024 or 028, whatever the HTTP status, or an answer that names no user (docs/errors.md#from-naver).
    public static func invalidNaverToken(_ detail: String) -> Problem { Problem(.invalidNaverToken, detail) }
    /// Naver answered 403: the app has not enabled the profile API (docs/errors.md#from-naver).
    public static func naverRejected(_ detail: String) -> Problem { Problem(.naverRejected, detail) }
    public static func naverQuotaExceeded() -> Problem {
        Problem(.naverQuotaExceeded, "Naver reports that the app's API quota is exceeded (HTTP 429).")
    }
    /// Naver 5xx, unreachable, an answer that does not parse, or a `resultcode` the service does not know (named).
    public static func naverUnavailable(_ detail: String) -> Problem { Problem(.naverUnavailable, detail) }
    /// LINE's verify refused the token, or its profile answered 401 (docs/errors.md#from-line).
    public static func invalidLineToken(_ detail: String) -> Problem { Problem(.invalidLineToken, detail) }
    public static func lineChannelMismatch() -> Problem {
        Problem(.lineChannelMismatch, "The LINE token was issued to another LINE Login channel.")
    }
    /// A LINE ID token broke a rule of docs/api.md#line-id-tokens; `detail` names the rule.
    public static func invalidLineIDToken(_ detail: String) -> Problem { Problem(.invalidLineIDToken, detail) }
    public static func lineQuotaExceeded() -> Problem {
        Problem(.lineQuotaExceeded, "LINE reports that the channel's API quota is exceeded (HTTP 429).")
    }
    public static func lineUnavailable(_ detail: String) -> Problem { Problem(.lineUnavailable, detail) }
    /// The ID token and the provider token belong to different users; names the provider (Kakao's detail is unchanged).
    public static func tokenMismatch(_ provider: Provider) -> Problem {
        guard provider != .kakao else { return tokenMismatch() }
        return Problem(.tokenMismatch, "The Firebase ID token and the \(provider.displayName) token belong to different users.")
    }
    /// An account deletion's ID token is from a sign-in older than `delete.max_auth_age_seconds`
    /// (docs/api.md#deleting-an-account): the person signs in again first.
    public static func reauthenticationRequired(maxAgeSeconds: Int) -> Problem {
        Problem(.reauthenticationRequired, "Deleting the account needs a sign-in within the last \(maxAgeSeconds) seconds; sign in again.")
    }
    /// Only for bugs (docs/errors.md#codes lists it as such): but a crash is worse than an honest problem body.
    public static func internalError() -> Problem { Problem(.internalError, "The service failed unexpectedly.") }
}
