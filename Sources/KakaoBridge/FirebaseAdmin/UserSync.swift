import Logging
import Metrics

/// Keeps the Firebase user `kakao:<id>` in step with the Kakao profile, between steps 2 and 3 of every route that mints
/// (docs/api.md#user-sync): created with the nickname, picture and (when §2 would show it) the verified email; later the
/// nickname and picture follow Kakao, the email only fills a gap; a disabled user is refused with `user_disabled`.
///
/// `best_effort` lets a login go on when Google fails (a warning and a metric, no personal data); `required` fails it.
/// Concurrent logins of one user share one sync; a user found in step is remembered for `firebase.user_cache_seconds`.
struct UserSync: Sendable {
    enum Mode: String, CaseIterable, Sendable {
        case off
        case bestEffort = "best_effort"
        case required
    }

    enum Outcome: String, CaseIterable, Sendable {
        case created
        case updated
        case unchanged
        case cached
        case disabled
        case failed
    }

    /// What one run of the sync found; shared by the logins that waited for it.
    private enum Step: Sendable {
        case synced(Outcome)
        case disabled
        case failed(Problem)
    }

    let admin: FirebaseAdmin
    let mode: Mode
    let cache: UserRecordCache
    let logger: Logger
    private let flights = SingleFlight<String, Step>()
    private let meters = SyncMeters()

    init(admin: FirebaseAdmin, mode: Mode, cache: UserRecordCache, logger: Logger) {
        self.admin = admin
        self.mode = mode
        self.cache = cache
        self.logger = logger
    }

    /// Whether this login created the Firebase user (`is_new_user`).
    func sync(uid: String, user: KakaoUser, context: CallContext) async throws(Problem) -> Bool {
        if cache.isInStep(uid: uid, with: user) {
            meters.count(.cached)
            return false
        }
        let (step, _) = await flights.run(uid) { () async -> Step in
            let step = await reconcile(uid: uid, user: user, context: context)
            if case .synced = step { cache.remember(uid: uid, profile: user) }
            return step
        }
        switch step {
        case .synced(let outcome):
            meters.count(outcome)
            if outcome == .created { logger.info("created the Firebase user", metadata: Self.metadata(uid, context)) }
            return outcome == .created
        case .disabled:
            meters.count(.disabled)
            logger.notice("refused a disabled Firebase user", metadata: Self.metadata(uid, context))
            throw Problem.userDisabled()
        case .failed(let problem):
            meters.count(.failed)
            var metadata = Self.metadata(uid, context)
            metadata["code"] = "\(problem.codeName)"
            metadata["detail"] = "\(problem.detail)"
            metadata["mode"] = "\(mode.rawValue)"
            guard mode == .required else {
                logger.warning("user sync failed; the login goes on (firebase.user_sync: best_effort)", metadata: metadata)
                return false
            }
            logger.warning("user sync failed; the login is refused (firebase.user_sync: required)", metadata: metadata)
            throw problem
        }
    }

    // MARK: The rules

    private func reconcile(uid: String, user: KakaoUser, context: CallContext) async -> Step {
        do throws(Problem) {
            guard let record = try await admin.lookUp(.uid(uid), context: context) else {
                return try await create(uid: uid, user: user, context: context)
            }
            return try await bringInStep(record, user: user, context: context)
        } catch {
            return error.codeName == "user_disabled" ? .disabled : .failed(error)
        }
    }

    private func create(uid: String, user: KakaoUser, context: CallContext) async throws(Problem) -> Step {
        var new = NewFirebaseUser(uid: uid, displayName: user.nickname, photoURL: user.profileImageURL)
        if let email = Self.shownEmail(user) {
            new.email = email
            new.emailVerified = true
        }
        var outcome = try await admin.create(new, context: context)
        if outcome == .emailExists {
            // Another Firebase user holds the email: this one is created without it (linking is §9's business).
            new.email = nil
            new.emailVerified = nil
            outcome = try await admin.create(new, context: context)
        }
        switch outcome {
        case .done:
            return .synced(.created)
        case .uidExists:
            // Another instance created the user a moment ago: bring that record in step instead.
            guard let record = try await admin.lookUp(.uid(uid), context: context) else {
                throw Problem.firebaseAdminUnavailable("The Admin API reported the user as existing but could not find it.")
            }
            return try await bringInStep(record, user: user, context: context)
        case .emailExists:
            throw Problem.firebaseAdminRejected("The Admin API refused accounts (create) without an email: EMAIL_EXISTS.")
        }
    }

    private func bringInStep(_ record: FirebaseUserRecord, user: KakaoUser, context: CallContext) async throws(Problem) -> Step {
        if record.disabled { return .disabled }
        let update = Self.changes(from: record, to: user)
        if update.isEmpty { return .synced(.unchanged) }
        switch try await admin.update(update, context: context) {
        case .done:
            return .synced(.updated)
        case .emailExists, .uidExists:
            // The email belongs to another user: the rest of the update is sent again without it.
            let rest = update.withoutEmail
            if rest.isEmpty { return .synced(.unchanged) }
            guard try await admin.update(rest, context: context) == .done else {
                throw Problem.firebaseAdminRejected("The Admin API refused accounts:update without an email: EMAIL_EXISTS.")
            }
            return .synced(.updated)
        }
    }

    /// Kakao owns the nickname and picture: they follow Kakao, and go when Kakao no longer returns them. The email is
    /// only ever added, to a user who has none, and only when verified.
    static func changes(from record: FirebaseUserRecord, to user: KakaoUser) -> FirebaseUserUpdate {
        var update = FirebaseUserUpdate(uid: record.uid)
        if user.nickname != record.displayName {
            if let nickname = user.nickname { update.displayName = nickname } else { update.deleteAttributes.append(.displayName) }
        }
        if user.profileImageURL != record.photoURL {
            if let photo = user.profileImageURL { update.photoURL = photo } else { update.deleteAttributes.append(.photoURL) }
        }
        if (record.email ?? "").isEmpty, let email = shownEmail(user) {
            update.email = email
            update.emailVerified = true
        }
        return update
    }

    /// The email exactly when §2 shows it: Kakao said it is valid and verified (`KakaoUser` carries it only then).
    static func shownEmail(_ user: KakaoUser) -> String? {
        guard let email = user.email, !email.isEmpty, user.emailVerified == true else { return nil }
        return email
    }

    /// A uid may appear in a log line (operators need it); an email, a name or a token never does.
    private static func metadata(_ uid: String, _ context: CallContext) -> Logger.Metadata {
        ["uid": "\(uid)", "request_id": "\(context.requestID)"]
    }
}

/// `kakao_bridge_user_sync_total{outcome}`.
final class SyncMeters: Sendable {
    private let counters: [Counter]

    init() {
        counters = UserSync.Outcome.allCases.map {
            Counter(label: "kakao_bridge_user_sync_total", dimensions: [("outcome", $0.rawValue)])
        }
    }

    func count(_ outcome: UserSync.Outcome) {
        counters[UserSync.Outcome.allCases.firstIndex(of: outcome)!].increment()
    }
}
