/// One unlink webhook call (docs/api.md#kakaos-unlink-webhook), or one event of a Kakao security event token (docs/api.md#kakaos-security-events), as the queue keeps it
/// until both of its steps have succeeded or its deadline has passed. No token and no email: the uid is the only account
/// detail, and only once step `firebase` found it.
public struct UnlinkEvent: Sendable, Equatable {
    /// Chosen by the caller so that Kakao's repeated call is the same event (for example a digest of the app id, the
    /// Kakao id and the time).
    public let id: String
    /// Kakao's user id; for another provider's event (Naver's unlink callback, docs/api.md#navers-unlink-callback), the
    /// person's mark key (`ProviderProfile.markKey`, negative), and `provider` with `providerID` name them.
    public let kakaoID: Int64
    /// nil for Kakao's events (as every event was before Naver); otherwise the provider's name (`naver`).
    public let provider: String?
    /// The provider's own id of the person (Naver's per-app id); nil for Kakao's events.
    public let providerID: String?
    /// Kakao's `referrer_type` (for a security event that unlinks: the event's `reason`).
    public let reason: String
    /// The security event's type URI (docs/api.md#kakaos-security-events); nil for the unlink webhook's events.
    public let eventType: String?
    public let receivedAt: Int64
    /// No retry after this instant: the event is then marked failed.
    public let deadline: Int64
    public var state: UnlinkEventState
    public var firebase: UnlinkStepProgress
    public var backend: UnlinkStepProgress
    /// What step `firebase` found: the uid that got the action, or nil when there was no user (or not looked up yet).
    public var uid: String?
    /// When the event is next due for a claim.
    public var nextAttemptAt: Int64
    /// The code that failed the event (`markFailed`).
    public var lastErrorCode: String?
    /// Who holds the lease now, and until when; nil and 0 when nobody does.
    public var leaseOwner: String?
    public var leaseExpiresAt: Int64

    /// A new, pending event: both steps pending and due at once.
    public init(
        id: String, kakaoID: Int64, reason: String, receivedAt: Int64, deadline: Int64, eventType: String? = nil,
        provider: String? = nil, providerID: String? = nil
    ) {
        self.id = id
        self.kakaoID = kakaoID
        self.provider = provider
        self.providerID = providerID
        self.reason = reason
        self.eventType = eventType
        self.receivedAt = receivedAt
        self.deadline = deadline
        self.state = .pending
        self.firebase = UnlinkStepProgress(nextAttemptAt: receivedAt)
        self.backend = UnlinkStepProgress(nextAttemptAt: receivedAt)
        self.uid = nil
        self.nextAttemptAt = receivedAt
        self.lastErrorCode = nil
        self.leaseOwner = nil
        self.leaseExpiresAt = 0
    }

    package init(
        id: String, kakaoID: Int64, reason: String, receivedAt: Int64, deadline: Int64, state: UnlinkEventState,
        firebase: UnlinkStepProgress, backend: UnlinkStepProgress, uid: String?, nextAttemptAt: Int64,
        lastErrorCode: String?, leaseOwner: String?, leaseExpiresAt: Int64, eventType: String?,
        provider: String? = nil, providerID: String? = nil
    ) {
        self.id = id
        self.kakaoID = kakaoID
        self.provider = provider
        self.providerID = providerID
        self.reason = reason
        self.eventType = eventType
        self.receivedAt = receivedAt
        self.deadline = deadline
        self.state = state
        self.firebase = firebase
        self.backend = backend
        self.uid = uid
        self.nextAttemptAt = nextAttemptAt
        self.lastErrorCode = lastErrorCode
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
    }

    public subscript(step: UnlinkStep) -> UnlinkStepProgress {
        get { step == .firebase ? firebase : backend }
        set { if step == .firebase { firebase = newValue } else { backend = newValue } }
    }
}

public enum UnlinkEventState: String, Sendable, Equatable, CaseIterable {
    case pending
    case failed
    case done
}

/// The two steps of an unlink (docs/api.md#kakaos-unlink-webhook) that talk to an outside system: the Firebase action (step 2) and the backend's call (step 3).
public enum UnlinkStep: String, Sendable, Equatable, CaseIterable {
    case firebase
    case backend
}

public enum UnlinkStepState: String, Sendable, Equatable {
    case pending
    case done
}

public struct UnlinkStepProgress: Sendable, Equatable {
    public var state: UnlinkStepState
    public var attempts: Int
    public var nextAttemptAt: Int64
    /// A short code such as `backend_unavailable`, never a message from the outside system.
    public var lastErrorCode: String?

    public init(state: UnlinkStepState = .pending, attempts: Int = 0, nextAttemptAt: Int64, lastErrorCode: String? = nil) {
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastErrorCode = lastErrorCode
    }
}

/// Which failed events `requeue` puts back.
public enum UnlinkRequeue: Sendable, Equatable {
    case ids([String])
    case allFailed
}

public struct UnlinkQueueCounts: Sendable, Equatable {
    public let pending: Int
    public let failed: Int

    public init(pending: Int, failed: Int) {
        self.pending = pending
        self.failed = failed
    }
}
