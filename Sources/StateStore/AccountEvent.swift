/// One unlink webhook call (docs/api.md#kakaos-unlink-webhook), one event of a Kakao security event token (docs/api.md#kakaos-security-events),
/// or one account deletion (docs/api.md#deleting-an-account, `kind` `.deletion`), as the queue keeps it until its steps
/// have succeeded or its deadline has passed. No token and no email: the uid is the only account
/// detail, and only once step `firebase` found it.
public struct AccountEvent: Sendable, Equatable {
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
    public var state: AccountEventState
    public var firebase: AccountStepProgress
    public var backend: AccountStepProgress
    /// What the event is: an account event (every event before deletions) or an account deletion.
    public let kind: AccountEventKind
    /// A deletion's unlink at the provider; `.skipped` for the account events, which have no such step.
    public var providerUnlink: AccountStepProgress
    /// A deletion of a linked account (docs/api.md#linking-to-an-existing-firebase-account): the link record
    /// `kakao:<id>`, deleted with the account. nil otherwise.
    public let linkRecord: String?
    /// What step `firebase` found: the uid that got the action, or nil when there was no user (or not looked up yet).
    public var uid: String?
    /// When the event is next due for a claim.
    public var nextAttemptAt: Int64
    /// The code that failed the event (`markFailed`).
    public var lastErrorCode: String?
    /// Who holds the lease now, and until when; nil and 0 when nobody does.
    public var leaseOwner: String?
    public var leaseExpiresAt: Int64

    /// A new, pending event: its steps pending and due at once, nobody holding it.
    public init(
        id: String, kakaoID: Int64, reason: String, receivedAt: Int64, deadline: Int64, eventType: String? = nil,
        provider: String? = nil, providerID: String? = nil, kind: AccountEventKind = .accountEvent,
        providerUnlink: AccountStepState = .skipped, linkRecord: String? = nil
    ) {
        self.init(
            id: id, kakaoID: kakaoID, reason: reason, receivedAt: receivedAt, deadline: deadline, state: .pending,
            firebase: AccountStepProgress(nextAttemptAt: receivedAt), backend: AccountStepProgress(nextAttemptAt: receivedAt),
            uid: nil, nextAttemptAt: receivedAt, lastErrorCode: nil, leaseOwner: nil, leaseExpiresAt: 0, eventType: eventType,
            provider: provider, providerID: providerID, kind: kind,
            providerUnlink: AccountStepProgress(state: providerUnlink, nextAttemptAt: receivedAt), linkRecord: linkRecord
        )
    }

    /// Every field as stored (the stores read rows back with it).
    package init(
        id: String, kakaoID: Int64, reason: String, receivedAt: Int64, deadline: Int64, state: AccountEventState,
        firebase: AccountStepProgress, backend: AccountStepProgress, uid: String?, nextAttemptAt: Int64,
        lastErrorCode: String?, leaseOwner: String?, leaseExpiresAt: Int64, eventType: String?,
        provider: String? = nil, providerID: String? = nil, kind: AccountEventKind = .accountEvent,
        providerUnlink: AccountStepProgress? = nil, linkRecord: String? = nil
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
        self.kind = kind
        self.providerUnlink = providerUnlink ?? AccountStepProgress(state: .skipped, nextAttemptAt: receivedAt)
        self.linkRecord = linkRecord
        self.uid = uid
        self.nextAttemptAt = nextAttemptAt
        self.lastErrorCode = lastErrorCode
        self.leaseOwner = leaseOwner
        self.leaseExpiresAt = leaseExpiresAt
    }

    public subscript(step: AccountStep) -> AccountStepProgress {
        get {
            switch step {
            case .firebase: firebase
            case .backend: backend
            case .providerUnlink: providerUnlink
            }
        }
        set {
            switch step {
            case .firebase: firebase = newValue
            case .backend: backend = newValue
            case .providerUnlink: providerUnlink = newValue
            }
        }
    }
}

/// What a queued event is.
public enum AccountEventKind: String, Sendable, Equatable, CaseIterable {
    /// An unlink webhook call, a security event, a provider's unlink callback.
    case accountEvent = "account_event"
    /// An account deleted through the service (docs/api.md#deleting-an-account): its id is `AccountEvent.deletionID(uid:)`.
    case deletion
}

extension AccountEvent {
    /// The id of the deletion of `uid`: one record per account, so that a deletion asked again finds it.
    public static func deletionID(uid: String) -> String { "deletion:" + uid }
}

public enum AccountEventState: String, Sendable, Equatable, CaseIterable {
    case pending
    case failed
    case done
}

/// The steps of an unlink (docs/api.md#kakaos-unlink-webhook) that talk to an outside system: the Firebase action (step 2) and the backend's call (step 3);
/// a deletion (docs/api.md#deleting-an-account) also unlinks at the provider first.
public enum AccountStep: String, Sendable, Equatable, CaseIterable {
    case firebase
    case backend
    /// Only a deletion's: the columns `provider_unlink_*`.
    case providerUnlink = "provider_unlink"
}

public enum AccountStepState: String, Sendable, Equatable {
    case pending
    case done
    /// Nothing to do: a deletion's unlink without the admin key or the person's token, a backend without `backend.unlink_url`.
    case skipped
    /// A deletion's Naver or LINE unlink that failed: the person's token is never kept, so it cannot be retried.
    case failed
}

public struct AccountStepProgress: Sendable, Equatable {
    public var state: AccountStepState
    public var attempts: Int
    public var nextAttemptAt: Int64
    /// A short code such as `backend_unavailable`, never a message from the outside system.
    public var lastErrorCode: String?

    public init(state: AccountStepState = .pending, attempts: Int = 0, nextAttemptAt: Int64, lastErrorCode: String? = nil) {
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

public struct AccountEventCounts: Sendable, Equatable {
    public let pending: Int
    public let failed: Int

    public init(pending: Int, failed: Int) {
        self.pending = pending
        self.failed = failed
    }
}
