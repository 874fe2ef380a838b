import BridgeSupport
import Logging
import StateStore
import Upstreams

/// The steps of a queued account event (docs/api.md#kakaos-unlink-webhook, docs/api.md#kakaos-security-events): the
/// Firebase action of its `AccountAction` (step `firebase`), then telling the backend (step `backend`). What the unlink
/// webhook and the security events start at once and the queue retries (`AccountEventWorker`); at least once, and each
/// step leaves the same state when repeated.
///
/// Present when the unlink webhook (`kakao.admin_key`) or the security events (`kakao.events.audiences`) are on.
package final class AccountActions: Sendable {
    package typealias UnlinkAction = BridgeConfig.UnlinkAction

    /// What happened, for the log line and the metrics.
    package enum Outcome: String, CaseIterable, Sendable {
        case done
        case noUser = "no_user"
        /// A step failed and is retried later.
        case pending
        case failed
    }

    /// `kakao.unlink_action`: what an unlink does to the Firebase user.
    package let unlinkAction: UnlinkAction
    let uidPrefix: String
    let admin: FirebaseAdmin
    let shared: SharedState
    /// `kakao.unlink_retry_hours`, in seconds.
    package let retrySeconds: Int64
    /// `kakao.unlink_lease_seconds`.
    package let leaseSeconds: Int64
    let logger: Logger
    package let meters: UnlinkMeters
    /// The verified-token cache, when on: the user's entries are dropped from it.
    let kakaoCache: KakaoVerificationCache?
    /// The user sync's cache, when the sync is on.
    let userCache: UserRecordCache?
    /// `naver.uid_prefix`: the uid of a Naver unlink callback's person (docs/api.md#navers-unlink-callback).
    let naverUIDPrefix: String
    /// Naver's verified-token cache, when on.
    let naverCache: ProviderVerificationCache<NaverUser>?
    /// Present exactly when `backend.unlink_url` is set.
    let unlinkNotifier: (any UnlinkNotifying)?
    /// Present exactly when `backend.events_url` is set.
    let eventsNotifier: (any SecurityEventNotifying)?
    /// Kakao's admin-key unlink, step 1 of a Kakao account's deletion (docs/api.md#deleting-an-account); present exactly
    /// when `kakao.admin_key` is set.
    package let kakaoUnlinker: (any ProviderUnlinking)?
    /// Counts deletions by provider and outcome.
    package let deletionMeters: DeletionMeters
    let clock: UnixClock

    init(
        unlinkAction: UnlinkAction, uidPrefix: String, admin: FirebaseAdmin, shared: SharedState, retrySeconds: Int64,
        leaseSeconds: Int64, kakaoCache: KakaoVerificationCache?, userCache: UserRecordCache?,
        unlinkNotifier: (any UnlinkNotifying)?, eventsNotifier: (any SecurityEventNotifying)?, meters: UnlinkMeters,
        clock: UnixClock, logger: Logger, naverUIDPrefix: String = "naver:", naverCache: ProviderVerificationCache<NaverUser>? = nil,
        kakaoUnlinker: (any ProviderUnlinking)? = nil, deletionMeters: DeletionMeters = DeletionMeters()
    ) {
        self.kakaoUnlinker = kakaoUnlinker
        self.deletionMeters = deletionMeters
        self.naverUIDPrefix = naverUIDPrefix
        self.naverCache = naverCache
        self.unlinkAction = unlinkAction
        self.uidPrefix = uidPrefix
        self.admin = admin
        self.shared = shared
        self.retrySeconds = retrySeconds
        self.leaseSeconds = leaseSeconds
        self.kakaoCache = kakaoCache
        self.userCache = userCache
        self.unlinkNotifier = unlinkNotifier
        self.eventsNotifier = eventsNotifier
        self.meters = meters
        self.clock = clock
        self.logger = logger
    }

    /// A new event for the queue, leased to this instance so that its first run starts here at once.
    package func newEvent(
        id: String, kakaoID: Int64, reason: String, eventType: String?, now: Int64, provider: Provider? = nil, providerID: String? = nil
    ) -> AccountEvent {
        var event = AccountEvent(
            id: id, kakaoID: kakaoID, reason: reason, receivedAt: now, deadline: now + retrySeconds, eventType: eventType,
            provider: provider?.rawValue, providerID: providerID
        )
        event.leaseOwner = shared.instanceID
        event.leaseExpiresAt = now + leaseSeconds
        return event
    }

    /// This instance's side of a mark, at once (other instances follow the store's mark, `UnlinkMarkFollower`): the
    /// user's cached verifications and user record are dropped, a verification under way is not cached, and, when the
    /// mark ends sessions, ID tokens issued up to `at` are refused.
    package func forgetLocally(_ kakaoID: Int64, endingSessionsAt at: Int64?) {
        forgetLocally(markKey: kakaoID, uid: uidPrefix + String(kakaoID), endingSessionsAt: at)
    }

    /// The same for any provider's person: `markKey` is `ProviderProfile.markKey` (a Kakao id, or a negative digest).
    package func forgetLocally(markKey: Int64, uid: String, endingSessionsAt at: Int64?) {
        if let at { shared.unlinkedUsers.record(markKey, at: at) } else { shared.unlinkedUsers.recordChange(markKey) }
        if markKey > 0 { _ = kakaoCache?.dropUser(markKey) } else { _ = naverCache?.dropUser(markKey: markKey) }
        userCache?.forget(uid: uid)
    }

    /// The uid an event is about: `kakao:<id>`, or another provider's (`naver:<id>`) when the event names one.
    package func uid(of event: AccountEvent) -> String {
        if event.provider == Provider.naver.rawValue, let id = event.providerID { return naverUIDPrefix + id }
        return uidPrefix + String(event.kakaoID)
    }

    /// Both steps of an event this instance holds the lease of. A step already done is not repeated; each is safe to
    /// repeat after a crash. The lease is renewed while the steps run, so a slow step is never taken over and run twice at
    /// once.
    package func work(_ event: AccountEvent, context: CallContext) async -> Outcome {
        let renewal = Task { [shared, clock, leaseSeconds] in
            while !Task.isCancelled {
                // A third of the lease, to the millisecond: leases end on whole seconds, so with a short lease a whole-second
                // interval (2 s lease, renewed every 1 s) left no margin and another instance could take over a running step.
                try? await Task.sleep(for: .milliseconds(max(1, leaseSeconds) * 1000 / 3))
                if Task.isCancelled { return }
                _ = try? await shared.store.renewLease(id: event.id, owner: shared.instanceID, now: clock.now(), leaseSeconds: leaseSeconds)
            }
        }
        defer { renewal.cancel() }
        if event.kind == .deletion { return await deletionSteps(event, context: context) }
        let store = shared.store
        let owner = shared.instanceID
        let action = AccountAction(queued: event.eventType)
        var failure: (step: UnlinkStep, problem: Problem)?
        // The uid the backend is told: known once step `firebase` has looked the user up (nil: there is none).
        var found: String?? = event.firebase.state == .done ? .some(event.uid) : nil
        if event.firebase.state != .done {
            do throws(Problem) {
                let target = try await lookUp(uid(of: event), context: context)
                found = .some(target.uid)
                try await apply(action, to: target, event: event, context: context)
                _ = try? await store.completeStep(id: event.id, step: .firebase, owner: owner, uid: target.uid)
                meters.count(.firebase, .done)
            } catch {
                failure = (.firebase, error)
            }
        }
        if event.backend.state != .done, let uid = found {
            do throws(Problem) {
                let told = try await tellBackend(event, action: action, uid: uid, context: context)
                _ = try? await store.completeStep(id: event.id, step: .backend, owner: owner, uid: nil)
                if told { meters.count(.backend, .done) }
            } catch {
                failure = failure ?? (.backend, error)
            }
        }
        guard let failure else {
            _ = try? await store.finish(id: event.id)
            let uid = found ?? nil
            let message = event.provider.flatMap(Provider.init(rawValue:)).map { "unlinked a \($0.displayName) user" } ?? Self.doneMessage(action)
            logger.info(Logger.Message(stringLiteral: message), metadata: metadata(event, action, uid: uid))
            return uid == nil ? .noUser : .done
        }
        return await giveUpOrRetry(event, action, failure.step, failure.problem, uid: found ?? nil)
    }

    private static func doneMessage(_ action: AccountAction) -> String {
        switch action {
        case .unlink: "unlinked a Kakao user"
        case .disable: "disabled a Kakao user for Kakao's account-disabled"
        case .enable: "enabled a Kakao user for Kakao's account-enabled"
        case .revokeSessions: "revoked a Kakao user's sessions for Kakao's security event"
        case .distrustEmail: "a Kakao user's email is no longer trusted (identifier-recycled)"
        case .dropVerifications, .refreshProfile, .acknowledge: "handled Kakao's security event"
        }
    }

    /// Step `backend`: the unlink URL for an unlink (the webhook's or a SET's), the events URL for every SET's event.
    /// `false` when nobody was to be told.
    private func tellBackend(_ event: AccountEvent, action: AccountAction, uid: String?, context: CallContext) async throws(Problem) -> Bool {
        var told = false
        if action == .unlink, let unlinkNotifier {
            let notice = if let provider = event.provider.flatMap(Provider.init(rawValue:)), provider != .kakao, let id = event.providerID {
                UnlinkNotice(uid: uid, provider: provider, providerID: id)
            } else {
                UnlinkNotice(uid: uid, kakaoID: event.kakaoID, referrerType: event.reason)
            }
            try await unlinkNotifier.notify(notice, context: context)
            told = true
        }
        if let type = event.eventType, let eventsNotifier {
            let jti = SecurityEventIDs.jti(ofEventID: event.id)
            try await eventsNotifier.notify(SecurityEventNotice(uid: uid, kakaoID: event.kakaoID, event: type, jti: jti), context: context)
            told = true
        }
        return told
    }

    /// Backoff from 1 s, doubling, up to 5 minutes; past the event's deadline it is marked failed and logged at error.
    func giveUpOrRetry(
        _ event: AccountEvent, _ action: AccountAction, _ step: UnlinkStep, _ problem: Problem, uid: String?
    ) async -> Outcome {
        let attempts = event[step].attempts + 1
        let backoff = Int64(1) << Int64(min(attempts - 1, 9))
        let next = clock.now() + min(backoff, 300)
        var metadata = metadata(event, action, uid: uid ?? self.uid(of: event))
        metadata["step"] = "\(step.rawValue)"
        metadata["code"] = "\(problem.code.rawValue)"
        metadata["attempts"] = .stringConvertible(attempts)
        if let message = problem.upstreamMessage { metadata["upstream_message"] = "\(message)" }
        // The webhook's events keep the words operators' alerts were written for (docs/operations.md).
        let kind = event.kind == .deletion ? "account deletion" : event.eventType == nil ? "unlink" : "security event"
        if next > event.deadline {
            _ = try? await shared.store.markFailed(id: event.id, errorCode: problem.code.rawValue)
            meters.count(step, .failed)
            if event.kind == .deletion, let provider = event.provider.flatMap(Provider.init(rawValue:)) {
                deletionMeters.count(provider, .failed)
            }
            logger.error(
                "\(kind) event failed: kakao.unlink_retry_hours passed; `kakao-bridge unlinks --retry-failed` puts it back", metadata: metadata
            )
            return .failed
        }
        _ = try? await shared.store.deferStep(id: event.id, step: step, owner: shared.instanceID, errorCode: problem.code.rawValue, nextAttemptAt: next)
        meters.count(step, .retry)
        metadata["retry_in_s"] = .stringConvertible(next - clock.now())
        logger.warning("\(kind) step failed; it is retried", metadata: metadata)
        return .pending
    }

    func metadata(_ event: AccountEvent, _ action: AccountAction, uid: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["event": "\(event.id)"]
        if let provider = event.provider, let id = event.providerID {
            metadata["provider"] = "\(provider)"
            metadata["provider_id"] = "\(id)"
        } else {
            metadata["kakao_id"] = .stringConvertible(event.kakaoID)
        }
        if let type = event.eventType {
            metadata["event_type"] = "\(AccountAction.metricName(type))"
        } else {
            metadata["referrer_type"] = "\(event.reason)"
            metadata["action"] = "\(unlinkAction.rawValue)"
        }
        if action == .unlink, event.eventType != nil { metadata["referrer_type"] = "\(event.reason)" }
        if let uid { metadata["uid"] = "\(uid)" }
        return metadata
    }

    // MARK: Step `firebase`

    /// Who the Kakao user is in Firebase.
    enum Target: Sendable {
        case none
        case user(FirebaseUserRecord)
        /// `kakao:<id>` is a link record pointing at this account.
        case linked(record: String, account: String)

        /// The uid the person was signed in as: what the backend knows them by.
        var uid: String? {
            switch self {
            case .none: nil
            case .user(let record): record.uid
            case .linked(_, let account): account
            }
        }
    }

    private func lookUp(_ kakaoUID: String, context: CallContext) async throws(Problem) -> Target {
        guard let record = try await admin.lookUp(.uid(kakaoUID), context: context) else { return .none }
        if let attributes = CustomAttributes(record.customAttributes), let linkedUID = attributes.linkedUID {
            return .linked(record: kakaoUID, account: linkedUID)
        }
        return .user(record)
    }

    /// A linked account (one with other ways to sign in) is never disabled or deleted for Kakao's sake: at most it loses
    /// `kakao_id` and its sessions. "Revoke" and "disable" on a user that does not exist do nothing.
    private func apply(_ action: AccountAction, to target: Target, event: AccountEvent, context: CallContext) async throws(Problem) {
        let kakaoID = event.kakaoID
        switch (action, target) {
        case (_, .none), (.dropVerifications, _), (.refreshProfile, _), (.acknowledge, _):
            return
        case (.unlink, .linked(let record, let account)):
            try await revokeLinkedAccount(account, kakaoID: kakaoID, removingKakaoID: true, context: context)
            try await admin.delete(uid: record, context: context)
        case (.unlink, .user(let record)):
            try await unlink(record.uid, context: context)
        case (.disable, .linked(_, let account)), (.revokeSessions, .linked(_, let account)):
            try await revokeLinkedAccount(account, kakaoID: kakaoID, removingKakaoID: false, context: context)
        case (.disable, .user(let record)):
            var update = FirebaseUserUpdate(uid: record.uid)
            update.validSince = clock.now()
            if !record.disabled {
                // Remembered before the write: a crash between the two leaves a user the service may enable, never one
                // it disabled and forgot. A user disabled by someone else is not claimed.
                try await remember(kakaoID, disabledByService: true)
                update.disabled = true
            }
            try await write(update, context: context)
        case (.enable, .user(let record)):
            guard try await isDisabledByService(kakaoID) else { return }
            if record.disabled {
                var update = FirebaseUserUpdate(uid: record.uid)
                update.disabled = false
                try await write(update, context: context)
            }
            try await remember(kakaoID, disabledByService: false)
        case (.enable, .linked):
            return
        case (.revokeSessions, .user(let record)):
            var update = FirebaseUserUpdate(uid: record.uid)
            update.validSince = clock.now()
            try await write(update, context: context)
        case (.distrustEmail, .user(let record)):
            guard record.emailVerified else { return }
            var update = FirebaseUserUpdate(uid: record.uid)
            update.emailVerified = false
            try await write(update, context: context)
            userCache?.forget(uid: record.uid)
        case (.distrustEmail, .linked):
            // The linked account's address was verified by its own way of signing in, not by Kakao.
            return
        }
    }

    /// The unlink webhook's step 2 on a user of our own: `kakao.unlink_action`.
    private func unlink(_ uid: String, context: CallContext) async throws(Problem) {
        var update = FirebaseUserUpdate(uid: uid)
        switch unlinkAction {
        case .none:
            return
        case .delete:
            try await admin.delete(uid: uid, context: context)
            return
        case .revoke:
            update.validSince = clock.now()
        case .disable:
            update.validSince = clock.now()
            update.disabled = true
        }
        try await write(update, context: context)
    }

    /// The linked account's sessions revoked and, for an unlink, its `kakao_id` removed. An account that no longer names
    /// this Kakao user (a stale record, docs/api.md#linking-to-an-existing-firebase-account) is not this person's and is
    /// left alone.
    private func revokeLinkedAccount(_ uid: String, kakaoID: Int64, removingKakaoID: Bool, context: CallContext) async throws(Problem) {
        guard let linked = try await admin.lookUp(.uid(uid), context: context),
              let attributes = CustomAttributes(linked.customAttributes), attributes.kakaoID == kakaoID else { return }
        var update = FirebaseUserUpdate(uid: uid)
        update.validSince = clock.now()
        if removingKakaoID { update.customAttributes = attributes.removing("kakao_id").serialized }
        try await write(update, context: context)
    }

    private func write(_ update: FirebaseUserUpdate, context: CallContext) async throws(Problem) {
        guard try await admin.update(update, context: context) == .done else {
            throw Problem.firebaseAdminRejected("The Admin API refused accounts:update for the Kakao user.")
        }
    }

    private func remember(_ kakaoID: Int64, disabledByService: Bool) async throws(Problem) {
        do {
            try await shared.store.setDisabledByService(kakaoID: kakaoID, disabledByService, at: clock.now())
        } catch {
            throw error.problem
        }
    }

    private func isDisabledByService(_ kakaoID: Int64) async throws(Problem) -> Bool {
        do {
            return try await shared.store.isDisabledByService(kakaoID: kakaoID)
        } catch {
            throw error.problem
        }
    }
}
