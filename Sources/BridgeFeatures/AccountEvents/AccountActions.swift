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
    package enum EventOutcome: String, CaseIterable, Sendable {
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
    package func work(_ event: AccountEvent, context: CallContext) async -> EventOutcome {
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
        var failure: (step: AccountStep, problem: Problem)?
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
}
