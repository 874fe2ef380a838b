/// What the backend is told of a Kakao security event that had an action (docs/api.md#kakaos-security-events).
public struct SecurityEventNotice: Sendable, Equatable {
    /// The account acted on: `kakao:<id>`, or the linked account for a link record; `nil` when no Firebase user exists.
    public var uid: String?
    public var kakaoID: Int64
    /// The event type's full URI.
    public var event: String
    /// The SET's `jti`.
    public var jti: String

    public init(uid: String?, kakaoID: Int64, event: String, jti: String) {
        self.uid = uid
        self.kakaoID = kakaoID
        self.event = event
        self.jti = jti
    }
}

/// The backend's events URL (`backend.events_url`). The real one is `BackendNoticeClient`; tests pass fakes. A 2xx answer
/// is success; anything else is a `backend_*` or `upstream_timeout` problem.
public protocol SecurityEventNotifying: Sendable {
    func notify(_ notice: SecurityEventNotice, context: CallContext) async throws(Problem)
}

/// In place of a notifier while `backend.events_url` is empty: never called, since nothing is told then.
public struct NoSecurityEventNotifier: SecurityEventNotifying {
    public init() {}

    public func notify(_ notice: SecurityEventNotice, context: CallContext) async throws(Problem) {
        throw Problem.backendUnavailable("backend.events_url is not set.")
    }
}
