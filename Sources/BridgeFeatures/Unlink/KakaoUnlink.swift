import BridgeSupport
import Logging
import Metrics
import OpenSSLCrypto
import StateStore
import Upstreams

/// What the service does when Kakao says a person left (docs/api.md#kakaos-unlink-webhook), in the webhook's order:
/// (1) forget every cached verification of theirs and remember the unlink for a day, (2) the configured action on their
/// Firebase user (or, for a link record, on the linked account: `kakao_id` removed and sessions revoked, then the record
/// deleted), (3) tell the backend. Replaying a callback does no harm: each step leaves the same state twice.
///
/// Present exactly when `kakao.admin_key` is set.
package final class KakaoUnlink: Sendable {
    package typealias Action = BridgeConfig.UnlinkAction

    /// One unlink as Kakao reported it.
    package struct Event: Sendable {
        package var kakaoID: Int64
        package var referrerType: String?

        package init(kakaoID: Int64, referrerType: String?) {
            self.kakaoID = kakaoID
            self.referrerType = referrerType
        }
    }

    /// What happened, for the log line and the metric.
    package enum Outcome: String, CaseIterable, Sendable {
        case done
        case noUser = "no_user"
        /// A step failed and is retried later.
        case pending
        case failed
    }

    /// `kakao.app_id`: the webhook's `app_id` must be ours.
    package let appID: Int64
    /// `kakao.admin_key`: what Kakao sends as `Authorization: KakaoAK`.
    package let adminKey: [UInt8]
    /// `kakao.unlink_deadline_ms`: Kakao counts anything slower than 3 s as a failure.
    package let deadline: Duration
    package let action: Action
    let uidPrefix: String
    let admin: FirebaseAdmin
    let shared: SharedState
    /// `kakao.unlink_retry_hours`, in seconds.
    let retrySeconds: Int64
    /// `kakao.unlink_lease_seconds`.
    let leaseSeconds: Int64
    let logger: Logger
    package let meters: UnlinkMeters
    /// The verified-token cache, when on: the user's entries are dropped from it.
    let kakaoCache: KakaoVerificationCache?
    /// The user sync's cache, when the sync is on.
    let userCache: UserRecordCache?
    /// Present exactly when `backend.unlink_url` is set.
    let notifier: (any UnlinkNotifying)?
    let clock: UnixClock

    init(
        appID: Int64, adminKey: [UInt8], deadline: Duration, action: Action, uidPrefix: String, admin: FirebaseAdmin,
        shared: SharedState, retrySeconds: Int64, leaseSeconds: Int64, kakaoCache: KakaoVerificationCache?,
        userCache: UserRecordCache?, notifier: (any UnlinkNotifying)?, meters: UnlinkMeters, clock: UnixClock, logger: Logger
    ) {
        self.appID = appID
        self.adminKey = adminKey
        self.deadline = deadline
        self.action = action
        self.uidPrefix = uidPrefix
        self.admin = admin
        self.shared = shared
        self.retrySeconds = retrySeconds
        self.leaseSeconds = leaseSeconds
        self.meters = meters
        self.logger = logger
        self.kakaoCache = kakaoCache
        self.userCache = userCache
        self.notifier = notifier
        self.clock = clock
    }

    /// Before the webhook answers (docs/api.md#kakaos-unlink-webhook): the event is recorded durably, leased to this
    /// instance, and steps 1 and 4 take effect: the mark in the store for every instance, and here at once. A store that
    /// cannot record it is 503 `state_unavailable`: an event that cannot be kept is never acknowledged.
    package func accept(_ event: Event) async throws(Problem) -> UnlinkEvent {
        let now = clock.now()
        var queued = UnlinkEvent(
            id: Base64URL.encode(SecureRandom.bytes(count: 16)), kakaoID: event.kakaoID, reason: event.referrerType ?? "",
            receivedAt: now, deadline: now + retrySeconds
        )
        queued.leaseOwner = shared.instanceID
        queued.leaseExpiresAt = now + leaseSeconds
        try shared.health.require()
        do {
            try await shared.store.enqueue(queued)
            try await shared.store.recordUnlink(kakaoID: event.kakaoID, at: now)
        } catch {
            logger.error("unlink webhook: the state store cannot record the event", metadata: [
                "kakao_id": "\(event.kakaoID)", "reason": "\(error.description)",
            ])
            throw error.problem
        }
        forgetLocally(event.kakaoID, at: now)
        return queued
    }

    /// Step 1 here, at once: the mark (which also stops a verification under way from being cached), the cached
    /// verifications and the user cache. Other instances do the same when the mark reaches them (`UnlinkMarkFollower`).
    package func forgetLocally(_ kakaoID: Int64, at: Int64) {
        shared.unlinkedUsers.record(kakaoID, at: at)
        _ = kakaoCache?.dropUser(kakaoID)
        userCache?.forget(uid: uidPrefix + String(kakaoID))
    }

    /// Steps 2 and 3 of an event this instance holds the lease of: what the webhook starts at once and the queue
    /// retries (`UnlinkQueueWorker`). A step already done is not repeated; each is safe to repeat after a crash. The lease
    /// is renewed while the steps run, so a slow step is never taken over and run twice at once.
    package func work(_ event: UnlinkEvent, context: CallContext) async -> Outcome {
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
        let store = shared.store
        let owner = shared.instanceID
        let kakaoUID = uidPrefix + String(event.kakaoID)
        var failure: (step: UnlinkStep, problem: Problem)?
        // The uid the backend is told: known once step 2 has looked the user up (nil: there is none).
        var found: String?? = event.firebase.state == .done ? .some(event.uid) : nil
        if event.firebase.state != .done {
            do throws(Problem) {
                let target = try await lookUp(kakaoUID, context: context)
                found = .some(target.uid)
                try await apply(target, kakaoID: event.kakaoID, context: context)
                _ = try? await store.completeStep(id: event.id, step: .firebase, owner: owner, uid: target.uid)
                meters.count(.firebase, .done)
            } catch {
                failure = (.firebase, error)
            }
        }
        if event.backend.state != .done, let uid = found {
            do throws(Problem) {
                try await notifier?.notify(UnlinkNotice(uid: uid, kakaoID: event.kakaoID, referrerType: event.reason), context: context)
                _ = try? await store.completeStep(id: event.id, step: .backend, owner: owner, uid: nil)
                if notifier != nil { meters.count(.backend, .done) }
            } catch {
                failure = failure ?? (.backend, error)
            }
        }
        guard let failure else {
            _ = try? await store.finish(id: event.id)
            let uid = found ?? nil
            logger.info("unlinked a Kakao user", metadata: metadata(event, uid: uid))
            return uid == nil ? .noUser : .done
        }
        return await giveUpOrRetry(event, failure.step, failure.problem, uid: found ?? nil)
    }

    /// Backoff from 1 s, doubling, up to 5 minutes; past the event's deadline it is marked failed and logged at error.
    private func giveUpOrRetry(_ event: UnlinkEvent, _ step: UnlinkStep, _ problem: Problem, uid: String?) async -> Outcome {
        let attempts = event[step].attempts + 1
        let backoff = Int64(1) << Int64(min(attempts - 1, 9))
        let next = clock.now() + min(backoff, 300)
        var metadata = metadata(event, uid: uid ?? uidPrefix + String(event.kakaoID))
        metadata["step"] = "\(step.rawValue)"
        metadata["code"] = "\(problem.codeName)"
        metadata["attempts"] = "\(attempts)"
        if let message = problem.upstreamMessage { metadata["upstream_message"] = "\(message)" }
        if next > event.deadline {
            _ = try? await shared.store.markFailed(id: event.id, errorCode: problem.codeName)
            meters.count(step, .failed)
            logger.error("unlink event failed: kakao.unlink_retry_hours passed; `kakao-bridge unlinks --retry-failed` puts it back", metadata: metadata)
            return .failed
        }
        _ = try? await shared.store.deferStep(id: event.id, step: step, owner: shared.instanceID, errorCode: problem.codeName, nextAttemptAt: next)
        meters.count(step, .retry)
        metadata["retry_in_s"] = "\(next - clock.now())"
        logger.warning("unlink step failed; it is retried", metadata: metadata)
        return .pending
    }

    private func metadata(_ event: UnlinkEvent, uid: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "event": "\(event.id)", "kakao_id": "\(event.kakaoID)", "referrer_type": "\(event.reason)", "action": "\(action.rawValue)",
        ]
        if let uid { metadata["uid"] = "\(uid)" }
        return metadata
    }

    /// Who the Kakao user is in Firebase.
    enum Target: Sendable {
        case none
        case user(String)
        /// `kakao:<id>` is a link record pointing at this account.
        case linked(record: String, account: String)

        /// The uid the person was signed in as: what the backend knows them by.
        var uid: String? {
            switch self {
            case .none: nil
            case .user(let uid): uid
            case .linked(_, let account): account
            }
        }
    }

    private func lookUp(_ kakaoUID: String, context: CallContext) async throws(Problem) -> Target {
        guard let record = try await admin.lookUp(.uid(kakaoUID), context: context) else { return .none }
        if let attributes = CustomAttributes(record.customAttributes), let linkedUID = attributes.linkedUID {
            return .linked(record: kakaoUID, account: linkedUID)
        }
        return .user(kakaoUID)
    }

    /// Step 2.
    private func apply(_ target: Target, kakaoID: Int64, context: CallContext) async throws(Problem) {
        switch target {
        case .none:
            return
        case .linked(let record, let account):
            try await unlinkLinkedAccount(account, kakaoID: kakaoID, context: context)
            try await admin.delete(uid: record, context: context)
        case .user(let uid):
            var update = FirebaseUserUpdate(uid: uid)
            switch action {
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
    }

    /// An account with other ways to sign in is never disabled or deleted for leaving Kakao: it loses `kakao_id` and
    /// its sessions, whatever `kakao.unlink_action` says. An account that no longer names this Kakao user (a stale
    /// record, docs/api.md#linking-to-an-existing-firebase-account) is not this person's and is left alone.
    private func unlinkLinkedAccount(_ uid: String, kakaoID: Int64, context: CallContext) async throws(Problem) {
        guard let linked = try await admin.lookUp(.uid(uid), context: context),
              let attributes = CustomAttributes(linked.customAttributes), attributes.kakaoID == kakaoID else { return }
        var update = FirebaseUserUpdate(uid: uid)
        update.validSince = clock.now()
        update.customAttributes = attributes.removing("kakao_id").serialized
        try await write(update, context: context)
    }

    private func write(_ update: FirebaseUserUpdate, context: CallContext) async throws(Problem) {
        guard try await admin.update(update, context: context) == .done else {
            throw Problem.firebaseAdminRejected("The Admin API refused accounts:update for the unlinked user.")
        }
    }
}

/// `kakao_bridge_unlink_total{outcome}` (webhook calls), `kakao_bridge_unlink_steps_total{step,outcome}` and the queue's
/// gauges `kakao_bridge_unlink_events{state}` (docs/operations.md#metrics). One per process: reloads keep counting.
public final class UnlinkMeters: Sendable {
    package enum StepOutcome: String, CaseIterable, Sendable {
        case done
        case retry
        case failed
    }

    private let calls: [String: Counter]
    private let steps: [String: Counter]
    private let pending = Gauge(label: "kakao_bridge_unlink_events", dimensions: [("state", "pending")])
    private let failed = Gauge(label: "kakao_bridge_unlink_events", dimensions: [("state", "failed")])

    public init() {
        var calls: [String: Counter] = [:]
        for outcome in KakaoUnlink.Outcome.allCases {
            calls[outcome.rawValue] = Counter(label: "kakao_bridge_unlink_total", dimensions: [("outcome", outcome.rawValue)])
        }
        var steps: [String: Counter] = [:]
        for step in UnlinkStep.allCases {
            for outcome in StepOutcome.allCases {
                steps[step.rawValue + outcome.rawValue] = Counter(
                    label: "kakao_bridge_unlink_steps_total", dimensions: [("step", step.rawValue), ("outcome", outcome.rawValue)]
                )
            }
        }
        self.calls = calls
        self.steps = steps
    }

    package func count(_ outcome: KakaoUnlink.Outcome) { calls[outcome.rawValue]?.increment() }

    package func count(_ step: UnlinkStep, _ outcome: StepOutcome) { steps[step.rawValue + outcome.rawValue]?.increment() }

    package func queue(_ counts: UnlinkQueueCounts) {
        pending.record(counts.pending)
        failed.record(counts.failed)
    }
}
