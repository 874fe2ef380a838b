import BridgeJSON
import BridgeSupport
import Logging
import Metrics
import Upstreams

/// Keeps the Firebase user `kakao:<id>` (or `naver:<id>`, `line:<id>`) in step with the provider's profile, between
/// steps 2 and 3 of every route that mints (docs/api.md#user-sync): created with the display name, picture and (Kakao's,
/// when the answer would show it, docs/api.md#get-v1token-exchange) the verified email; later the name and picture follow the provider, the email only fills a
/// gap; a disabled user is refused with `user_disabled`. Only Kakao's users link by email (Naver's and LINE's never:
/// their emails carry no verified flag), and only theirs carry the provider's custom claims
/// (`{"provider": "naver", "naver_id": …}`), written when missing.
///
/// `best_effort` lets a login go on when Google fails (a warning and a metric, no personal data); `required` fails it.
/// Concurrent logins of one user share one sync; a user found in step is remembered for `firebase.user_cache_seconds`.
struct UserSync: Sendable {
    typealias Mode = BridgeConfig.UserSyncMode

    enum SyncOutcome: String, CaseIterable, Sendable {
        case created
        case updated
        case unchanged
        case cached
        case disabled
        case failed
        /// The login signed into an existing account of the same verified email (docs/api.md#linking-to-an-existing-firebase-account).
        case linked
        /// Linking found the email's account linked to another Kakao user (`account_conflict`).
        case conflict
    }

    /// Who the login signs in as, and whether this login created that Firebase user (`is_new_user`).
    struct Account: Sendable, Equatable {
        var uid: String
        var created: Bool
        /// The uid is an existing account the Kakao user is linked to (`is_new_user` is then false).
        var linked = false
    }

    /// What one run of the sync found; shared by the logins that waited for it.
    enum Step: Sendable {
        case synced(SyncOutcome, uid: String)
        /// A decision, not an outage: refused in every mode (`user_disabled`, `account_conflict`).
        case refused(Problem, SyncOutcome)
        /// Google failed. `resolvedUID` is the uid to mint for when it was known before the failure; without it a
        /// `best_effort` login cannot go on honestly when linking may point elsewhere.
        case failed(Problem, resolvedUID: String?)
    }

    let admin: FirebaseAdmin
    let mode: Mode
    let cache: UserRecordCache
    let logger: Logger
    /// `linking.by_verified_email`. Link records made earlier are followed whatever this says.
    let linksByEmail: Bool
    /// `kakao.uid_prefix`: accounts whose uid begins with it are never link targets.
    let uidPrefix: String
    let linkLocks: LinkLocks
    private let flights = SingleFlight<String, Step>()
    private let meters = SyncMeters()

    init(
        admin: FirebaseAdmin, mode: Mode, cache: UserRecordCache, logger: Logger, linksByEmail: Bool = false,
        uidPrefix: String = "kakao:", linkLocks: LinkLocks = .inMemory()
    ) {
        self.admin = admin
        self.mode = mode
        self.cache = cache
        self.logger = logger
        self.linksByEmail = linksByEmail
        self.uidPrefix = uidPrefix
        self.linkLocks = linkLocks
    }

    func sync<User: ProviderProfile>(uid: String, user: User, context: CallContext) async throws(Problem) -> Account {
        if let mintUID = cache.inStepUID(uid: uid, with: SyncedProfile(user)) {
            meters.count(.cached)
            return Account(uid: mintUID, created: false, linked: mintUID != uid)
        }
        let (step, _) = await flights.run(uid) { () async -> Step in
            let step = await reconcile(uid: uid, user: user, context: context)
            if case .synced(_, let mintUID) = step { cache.remember(uid: uid, profile: SyncedProfile(user), mintUID: mintUID) }
            return step
        }
        switch step {
        case .synced(let outcome, let mintUID):
            meters.count(outcome)
            if outcome == .created { logger.info("created the Firebase user", metadata: Self.metadata(uid, context)) }
            if outcome == .linked {
                var metadata = Self.metadata(uid, context)
                metadata["linked_uid"] = "\(mintUID)"
                logger.info("linked the Kakao user to an existing Firebase user by verified email", metadata: metadata)
            }
            return Account(uid: mintUID, created: outcome == .created, linked: mintUID != uid)
        case .refused(let problem, let outcome):
            meters.count(outcome)
            var metadata = Self.metadata(uid, context)
            metadata["code"] = "\(problem.code.rawValue)"
            logger.notice("refused the login", metadata: metadata)
            throw problem
        case .failed(let problem, let resolvedUID):
            meters.count(.failed)
            var metadata = Self.metadata(uid, context)
            metadata["code"] = "\(problem.code.rawValue)"
            metadata["detail"] = "\(problem.detail)"
            if let message = problem.upstreamMessage { metadata["upstream_message"] = "\(message)" }
            metadata["mode"] = "\(mode.rawValue)"
            guard mode == .required || resolvedUID == nil else {
                logger.warning("user sync failed; the login goes on (firebase.user_sync: best_effort)", metadata: metadata)
                let mintUID = resolvedUID ?? uid
                return Account(uid: mintUID, created: false, linked: mintUID != uid)
            }
            logger.warning("user sync failed; the login is refused", metadata: metadata)
            throw problem
        }
    }

    // MARK: The rules

    private func reconcile<User: ProviderProfile>(uid: String, user: User, context: CallContext) async -> Step {
        // Without linking, the uid is known before Google answers; with it, only once the lookups have said.
        var resolved: String? = linksByEmail && User.provider == .kakao ? nil : uid
        do throws(Problem) {
            guard let record = try await admin.lookUp(.uid(uid), context: context) else {
                return try await firstLogin(uid: uid, user: user, context: context)
            }
            guard let kakao = user as? KakaoUser, let attributes = CustomAttributes(record.customAttributes),
                  let linkedUID = attributes.linkedUID else {
                resolved = uid
                return try await bringInStep(record, user: user, context: context)
            }
            guard let linked = try await admin.lookUp(.uid(linkedUID), context: context) else {
                // The account it stood for is gone: the link record goes too, and this is a first login again.
                try await admin.delete(uid: uid, context: context)
                logger.notice("deleted a link record whose account no longer exists", metadata: Self.metadata(uid, context))
                return try await firstLogin(uid: uid, user: user, context: context)
            }
            try await requireLinkStands(linked, recordUID: uid, user: kakao, context: context)
            resolved = linkedUID
            return try await bringInStep(linked, user: kakao, extra: Self.keepProfile, context: context)
        } catch {
            switch error.code {
            case .userDisabled: return .refused(error, .disabled)
            case .accountConflict: return .refused(error, .conflict)
            default: return .failed(error, resolvedUID: resolved)
            }
        }
    }

    /// `kakao:<id>` does not exist: link to the account of the same verified email when linking is on and one fits,
    /// otherwise create the user.
    private func firstLogin<User: ProviderProfile>(uid: String, user: User, context: CallContext) async throws(Problem) -> Step {
        // Only a Kakao user links (docs/api.md#linking-to-an-existing-firebase-account): no other provider vouches for an email.
        if linksByEmail, let kakao = user as? KakaoUser, let email = Self.shownEmail(kakao),
           let step = try await link(uid: uid, email: email, user: kakao, context: context) {
            return step
        }
        return try await create(uid: uid, user: user, context: context)
    }

    /// `withEmail: false` when linking found the address held by another Kakao user of this service.
    func create<User: ProviderProfile>(uid: String, user: User, withEmail: Bool = true, context: CallContext) async throws(Problem) -> Step {
        var new = NewFirebaseUser(uid: uid, displayName: user.displayName, photoURL: user.photoURL)
        if withEmail, let email = user.verifiedEmail {
            new.email = email
            new.emailVerified = true
        }
        var outcome = try await admin.create(new, context: context)
        if outcome == .emailExists {
            // Another Firebase user holds the email: this one is created without it.
            new.email = nil
            new.emailVerified = nil
            outcome = try await admin.create(new, context: context)
        }
        switch outcome {
        case .done:
            // The provider's claims, which `accounts` does not take: written next (docs/api.md#user-sync). Kakao's users
            // get theirs from the custom token alone, as they always did.
            if User.provider != .kakao {
                var claims = FirebaseUserUpdate(uid: uid)
                claims.customAttributes = Self.providerAttributes(CustomAttributes([:]), user)?.serialized
                guard try await admin.update(claims, context: context) == .done else {
                    throw Problem.firebaseAdminRejected("The Admin API refused to write the user's provider claims.")
                }
            }
            return .synced(.created, uid: uid)
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

    func bringInStep<User: ProviderProfile>(
        _ record: FirebaseUserRecord, user: User, extra: (inout FirebaseUserUpdate) -> Void = { _ in },
        outcome done: SyncOutcome = .updated, context: CallContext
    ) async throws(Problem) -> Step {
        if record.disabled { throw Problem.userDisabled() }
        var update = Self.changes(from: record, to: user)
        extra(&update)
        if update.isEmpty { return .synced(done == .updated ? .unchanged : done, uid: record.uid) }
        switch try await admin.update(update, context: context) {
        case .done:
            return .synced(done, uid: record.uid)
        case .emailExists, .uidExists:
            // The email belongs to another user: the rest of the update is sent again without it.
            let rest = update.withoutEmail
            if rest.isEmpty { return .synced(done == .updated ? .unchanged : done, uid: record.uid) }
            guard try await admin.update(rest, context: context) == .done else {
                throw Problem.firebaseAdminRejected("The Admin API refused accounts:update without an email: EMAIL_EXISTS.")
            }
            return .synced(done, uid: record.uid)
        }
    }

    /// Kakao owns the nickname and picture: they follow Kakao, and go when Kakao no longer returns them. The email is
    /// only ever added, to a user who has none, and only when verified.
    static func changes<User: ProviderProfile>(from record: FirebaseUserRecord, to user: User) -> FirebaseUserUpdate {
        var update = FirebaseUserUpdate(uid: record.uid)
        if user.displayName != record.displayName {
            if let name = user.displayName { update.displayName = name } else { update.deleteAttributes.append(.displayName) }
        }
        if user.photoURL != record.photoURL {
            if let photo = user.photoURL { update.photoURL = photo } else { update.deleteAttributes.append(.photoURL) }
        }
        if (record.email ?? "").isEmpty, let email = user.verifiedEmail {
            update.email = email
            update.emailVerified = true
        }
        if User.provider != .kakao, let attributes = CustomAttributes(record.customAttributes),
           let merged = providerAttributes(attributes, user) {
            update.customAttributes = merged.serialized
        }
        return update
    }

    /// `{"provider": "naver", "naver_id": …}` merged into what the user has, or `nil` when it has them already: the
    /// claims the app's rules can read (docs/api.md#user-sync); nothing else is dropped.
    static func providerAttributes<User: ProviderProfile>(_ attributes: CustomAttributes, _ user: User) -> CustomAttributes? {
        let claim = user.claim
        let provider = JSONValue.string(claim.provider.rawValue)
        guard attributes.members["provider"] != provider || attributes.members[claim.idName] != claim.idValue else { return nil }
        return attributes.setting("provider", provider).setting(claim.idName, claim.idValue)
    }

    /// The email exactly when the token exchange's answer shows it: Kakao said it is valid and verified (`KakaoUser` carries it only then).
    static func shownEmail(_ user: KakaoUser) -> String? {
        guard let email = user.email, !email.isEmpty, user.emailVerified == true else { return nil }
        return email
    }

    /// A uid may appear in a log line (operators need it); an email, a name or a token never does.
    private static func metadata(_ uid: String, _ context: CallContext) -> Logger.Metadata {
        var metadata = context.logMetadata
        metadata["uid"] = "\(uid)"
        return metadata
    }
}

/// `kakao_bridge_user_sync_total{outcome}`.
final class SyncMeters: Sendable {
    private let counters: [Counter]

    init() {
        counters = UserSync.SyncOutcome.allCases.map {
            Counter(label: MetricName.userSync.rawValue, dimensions: [("outcome", $0.rawValue)])
        }
    }

    func count(_ outcome: UserSync.SyncOutcome) {
        counters[UserSync.SyncOutcome.allCases.firstIndex(of: outcome)!].increment()
    }
}
