import BridgeSupport
import Logging
import Metrics
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
    let unlinkedUsers: UnlinkedKakaoUsers
    /// The verified-token cache, when on: the user's entries are dropped from it.
    let kakaoCache: KakaoVerificationCache?
    /// The user sync's cache, when the sync is on.
    let userCache: UserRecordCache?
    /// Present exactly when `backend.unlink_url` is set.
    let notifier: (any UnlinkNotifying)?
    let clock: UnixClock

    init(
        appID: Int64, adminKey: [UInt8], deadline: Duration, action: Action, uidPrefix: String, admin: FirebaseAdmin,
        unlinkedUsers: UnlinkedKakaoUsers, kakaoCache: KakaoVerificationCache?, userCache: UserRecordCache?,
        notifier: (any UnlinkNotifying)?, clock: UnixClock
    ) {
        self.appID = appID
        self.adminKey = adminKey
        self.deadline = deadline
        self.action = action
        self.uidPrefix = uidPrefix
        self.admin = admin
        self.unlinkedUsers = unlinkedUsers
        self.kakaoCache = kakaoCache
        self.userCache = userCache
        self.notifier = notifier
        self.clock = clock
    }

    /// The first failing step's problem, or nothing when every configured step succeeded. Steps 1 and 4 are local and
    /// cannot fail. Once the lookup has said who the person was, step 3 runs even when the action failed: the backend's
    /// data is not Firebase's. When the lookup itself fails, the backend is not told a guess.
    package func run(_ event: Event, context: CallContext) async -> (outcome: Outcome, uid: String?, problem: Problem?) {
        let kakaoUID = uidPrefix + String(event.kakaoID)
        unlinkedUsers.record(event.kakaoID)
        kakaoCache?.dropUser(event.kakaoID)
        userCache?.forget(uid: kakaoUID)

        let target: Target
        do throws(Problem) {
            target = try await lookUp(kakaoUID, context: context)
        } catch {
            return (.failed, kakaoUID, error)
        }
        var problem: Problem?
        do throws(Problem) {
            try await apply(target, kakaoID: event.kakaoID, context: context)
        } catch {
            problem = error
        }
        if let notifier = notifier {
            do throws(Problem) {
                try await notifier.notify(
                    UnlinkNotice(uid: target.uid, kakaoID: event.kakaoID, referrerType: event.referrerType), context: context
                )
            } catch {
                problem = problem ?? error
            }
        }
        if let problem { return (.failed, target.uid ?? kakaoUID, problem) }
        return (target.uid == nil ? .noUser : .done, target.uid, nil)
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

/// `kakao_bridge_unlink_total{outcome}`.
package final class UnlinkMeters: Sendable {
    private let counters: [String: Counter]

    package init() {
        var counters: [String: Counter] = [:]
        for outcome in KakaoUnlink.Outcome.allCases {
            counters[outcome.rawValue] = Counter(label: "kakao_bridge_unlink_total", dimensions: [("outcome", outcome.rawValue)])
        }
        self.counters = counters
    }

    package func count(_ outcome: KakaoUnlink.Outcome) { counters[outcome.rawValue]?.increment() }
}
