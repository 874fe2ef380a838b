import BridgeJSON
import BridgeSupport
import Logging
import StateStore
import Upstreams

/// Deleting an account (docs/api.md#deleting-an-account): `POST /v1/users/delete` for the backend (the hook secret) and
/// `POST /v1/me/delete` for the app (a recent Firebase ID token). The deletion is one queued event of `AccountActions`:
/// its steps (the unlink at the provider, the Firebase user, the backend's notice) are recorded in the state store before
/// the answer, retried by the queue, and never repeated once done; the unlink mark is set with the record, so cached
/// verifications and older Kakao ID tokens of the person are refused fleet-wide at once.
///
/// Present when `hook.secret` is set or `delete.self_service` is on.
package final class AccountDeletion: HookSecured {
    /// The steps of a deletion as the answer names them: `{"uid", "provider", "steps": {"provider_unlink",
    /// "firebase_user", "backend"}}`.
    package struct Answer: Sendable, Equatable, JSONWritable {
        package var uid: String
        package var provider: Provider
        package var providerUnlink: AccountStepState
        package var firebaseUser: AccountStepState
        package var backend: AccountStepState

        /// 202 while a step is still to be retried, 200 otherwise.
        package var isPending: Bool { [providerUnlink, firebaseUser, backend].contains(.pending) }

        /// What the record says; an event the queue gave up on has its pending steps failed.
        init?(_ event: AccountEvent) {
            guard event.kind == .deletion, let uid = event.uid, let provider = event.provider.flatMap(Provider.init(rawValue:)) else {
                return nil
            }
            func state(_ progress: AccountStepProgress) -> AccountStepState {
                event.state == .failed && progress.state == .pending ? .failed : progress.state
            }
            self.uid = uid
            self.provider = provider
            self.providerUnlink = state(event.providerUnlink)
            self.firebaseUser = state(event.firebase)
            self.backend = state(event.backend)
        }

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("uid")
            writer.string(uid)
            writer.key("provider")
            writer.string(provider.rawValue)
            writer.key("steps")
            writer.openObject()
            for (name, state) in [("provider_unlink", providerUnlink), ("firebase_user", firebaseUser), ("backend", backend)] {
                writer.key(name)
                writer.string(state.rawValue)
            }
            writer.closeObject()
            writer.closeObject()
        }
    }

    /// `hook.secret`: `POST /v1/users/delete` is off (404) while it is empty.
    package let secrets: [[UInt8]]
    /// `rate_limit.hook_per_minute`, shared with the hook.
    package let perMinute: Int
    /// `POST /v1/me/delete`: present exactly when `delete.self_service` is on. The ID token is verified as the hook
    /// verifies it (with `hook.check_revoked`'s check when that is on).
    let idTokens: IDTokenVerifier?
    let revocation: RevocationCheck?
    /// `delete.max_auth_age_seconds`.
    package let maxAuthAgeSeconds: Int
    /// `kakao.unlink_deadline_ms`: the first run of the steps is awaited this long before the answer.
    package let deadline: Duration
    let actions: AccountActions
    /// The provider token is verified as at login.
    let login: LoginFlow
    let admin: FirebaseAdmin
    /// Naver's revoke and LINE's deauthorize, run within the request; nil when the provider's secret is not set.
    let naverUnlinker: (any ProviderUnlinking)?
    let lineUnlinker: (any ProviderUnlinking)?
    let prefixes: [(Provider, String)]
    let shared: SharedState
    let clock: UnixClock
    let logger: Logger

    init(
        secrets: [[UInt8]], perMinute: Int, idTokens: IDTokenVerifier?, revocation: RevocationCheck?, maxAuthAgeSeconds: Int,
        deadline: Duration, actions: AccountActions, login: LoginFlow, admin: FirebaseAdmin, naverUnlinker: (any ProviderUnlinking)?,
        lineUnlinker: (any ProviderUnlinking)?, prefixes: [(Provider, String)], shared: SharedState, clock: UnixClock, logger: Logger
    ) {
        self.secrets = secrets
        self.perMinute = perMinute
        self.idTokens = idTokens
        self.revocation = revocation
        self.maxAuthAgeSeconds = maxAuthAgeSeconds
        self.deadline = deadline
        self.actions = actions
        self.login = login
        self.admin = admin
        self.naverUnlinker = naverUnlinker
        self.lineUnlinker = lineUnlinker
        self.prefixes = prefixes
        self.shared = shared
        self.clock = clock
        self.logger = logger
    }

    package var selfServiceEnabled: Bool { idTokens != nil }
    package var meters: DeletionMeters { actions.deletionMeters }

    // MARK: Who asks

    /// `POST /v1/me/delete`'s ID token: verified, and from a sign-in at most `delete.max_auth_age_seconds` old (else 401
    /// `reauthentication_required`, as Firebase's own `user.delete()` asks for a recent sign-in). The uid to delete.
    package func selfServiceUID(idToken: String, context: CallContext) async throws(Problem) -> String {
        guard let idTokens else { throw Problem.notFound() }
        let verified = try await idTokens.verify(idToken, context: context)
        try await revocation?.check(verified, context: context)
        guard let authTime = verified.claims["auth_time"]?.int64Value, clock.now() - authTime <= Int64(maxAuthAgeSeconds) else {
            throw Problem.reauthenticationRequired(maxAgeSeconds: maxAuthAgeSeconds)
        }
        return verified.subject
    }

    // MARK: The deletion

    /// Whom a uid names: the provider, its id of the person, the mark's key, and a linked account's link record.
    struct Target: Sendable {
        var provider: Provider
        var providerID: String
        var markKey: Int64
        var linkRecord: String?
    }

    /// Records the deletion (or finds its record) and answers with the steps' states: the record's when it was asked
    /// before (nothing repeated). Refused before anything is done: 404 for a uid that is not this service's or has no
    /// user, 400 for a provider that is off, 401 `token_mismatch` for a provider token of another person.
    package func delete(uid: String, providerToken: String?, context: CallContext) async throws(Problem) -> (answer: Answer, queued: AccountEvent?) {
        try shared.health.require()
        if let answer = try await recorded(uid) { return (answer, nil) }
        let target = try await target(of: uid, context: context)
        if let providerToken { try await checkToken(providerToken, of: target, uid: uid, context: context) }
        let unlinked = await unlinkNow(target, providerToken: providerToken, context: context)
        let now = clock.now()
        var event = AccountEvent(
            id: AccountEvent.deletionID(uid: uid), kakaoID: target.markKey, reason: "account_deleted", receivedAt: now,
            deadline: now + actions.retrySeconds, provider: target.provider.rawValue, providerID: target.providerID, kind: .deletion,
            providerUnlink: unlinked, linkRecord: target.linkRecord
        )
        event.uid = uid
        if actions.unlinkNotifier == nil { event.backend.state = .skipped }
        event.leaseOwner = shared.instanceID
        event.leaseExpiresAt = now + actions.leaseSeconds
        let queued = event
        let first: Bool
        do {
            first = try await shared.withStore("record account deletion") { store throws(StateStoreError) -> Bool in
                guard try await store.enqueue(queued) else { return false }
                try await store.setUnlinkMark(kakaoID: queued.kakaoID, at: now)
                return true
            }
        } catch {
            logger.error("account deletion: the state store cannot record it", metadata: [
                "uid": "\(uid)", "request_id": "\(context.requestID)", "reason": "\(error.description)",
            ])
            throw error.problem
        }
        // Asked twice at once: the other request recorded it first and runs its steps.
        guard first else {
            if let answer = try await recorded(uid) { return (answer, nil) }
            throw Problem.stateUnavailable()
        }
        actions.forgetLocally(markKey: target.markKey, uid: target.linkRecord ?? uid, endingSessionsAt: now)
        logger.info("account deletion recorded", metadata: actions.deletionMetadata(queued).merging(["request_id": "\(context.requestID)"]) { $1 })
        guard let answer = Answer(queued) else { throw Problem.internalError() }
        return (answer, queued)
    }

    /// The steps' first run (`AccountActions.work`), then the answer as the store now records it.
    package func work(_ queued: AccountEvent, context: CallContext) async -> AccountActions.EventOutcome {
        await actions.work(queued, context: context)
    }

    /// The deletion's record, read again after its first run.
    package func recorded(_ uid: String) async throws(Problem) -> Answer? {
        let id = AccountEvent.deletionID(uid: uid)
        do {
            let event = try await shared.withStore("read account deletion") { store throws(StateStoreError) in try await store.event(id: id) }
            return event.flatMap(Answer.init)
        } catch {
            throw error.problem
        }
    }

    /// The uid's provider and person, from its prefix, or from the account's `kakao_id` when it is an account linked to a
    /// Kakao user; the user must exist.
    private func target(of uid: String, context: CallContext) async throws(Problem) -> Target {
        let prefixed = prefixes.first { uid.hasPrefix($0.1) && uid.count > $0.1.count }
        if let prefixed, !isOn(prefixed.0) {
            let name = prefixed.0.displayName
            throw Problem.invalidRequest("The uid is a \(name) user's, and \(name) is not switched on.")
        }
        guard let record = try await admin.lookUp(.uid(uid), context: context) else { throw Self.notFound }
        let attributes = CustomAttributes(record.customAttributes)
        // A link record is no account of its own: it goes with the account it points at.
        if attributes?.linkedUID != nil { throw Self.notFound }
        guard let prefixed else {
            guard let kakaoID = attributes?.kakaoID, let kakaoPrefix = prefixes.first(where: { $0.0 == .kakao })?.1 else { throw Self.notFound }
            return Target(provider: .kakao, providerID: String(kakaoID), markKey: kakaoID, linkRecord: kakaoPrefix + String(kakaoID))
        }
        let (provider, prefix) = prefixed
        let id = String(uid.dropFirst(prefix.count))
        switch provider {
        case .kakao:
            guard let kakaoID = Int64(id), kakaoID > 0 else { throw Self.notFound }
            return Target(provider: .kakao, providerID: id, markKey: kakaoID, linkRecord: nil)
        case .naver:
            return Target(provider: .naver, providerID: id, markKey: NaverUser.markKey(ofTextID: id), linkRecord: nil)
        case .line:
            return Target(provider: .line, providerID: id, markKey: LineUser.markKey(ofTextID: id), linkRecord: nil)
        }
    }

    private static let notFound = Problem.notFound("No account of this service has this uid.")

    private func isOn(_ provider: Provider) -> Bool {
        switch provider {
        case .kakao: true
        case .naver: login.naver != nil
        case .line: login.line != nil
        }
    }

    /// The provider token, verified as at login, must name the uid's person. A token the provider no longer accepts goes
    /// on (the unlink's answer decides it); an outage refuses the deletion, nothing done.
    private func checkToken(_ token: String, of target: Target, uid: String, context: CallContext) async throws(Problem) {
        let named: String
        do throws(Problem) {
            switch target.provider {
            case .kakao: named = String(try await login.kakao.verifiedUser(token, use: .hook, context: context).id)
            case .naver:
                guard let naver = login.naver else { throw Problem.internalError() }
                named = try await naver.verifiedUser(token, use: .hook, context: context).uidSuffix
            case .line:
                guard let line = login.line else { throw Problem.internalError() }
                named = try await line.verifiedUser(token, use: .hook, context: context).uidSuffix
            }
        } catch {
            // The provider's verdict on the token, which its unlink answers again.
            if Self.tokenRefusals.contains(error.code) { return }
            throw error
        }
        guard named == target.providerID else { throw Problem.tokenMismatch(target.provider) }
    }

    private static let tokenRefusals: Set<Problem.Code> = [
        .invalidKakaoToken, .invalidKakaoIDToken, .invalidNaverToken, .invalidLineToken, .invalidLineIDToken,
    ]

    /// Step 1's first state. Kakao's is queued (the admin key needs no token of the person); Naver's and LINE's run now
    /// with the person's token, which is not kept: done, or failed, never pending.
    private func unlinkNow(_ target: Target, providerToken: String?, context: CallContext) async -> AccountStepState {
        let unlinker: (any ProviderUnlinking)?
        switch target.provider {
        case .kakao: return actions.kakaoUnlinker == nil ? .skipped : .pending
        case .naver: unlinker = naverUnlinker
        case .line: unlinker = lineUnlinker
        }
        guard let unlinker, let providerToken else { return .skipped }
        do throws(Problem) {
            try await unlinker.unlink(.accessToken(providerToken), context: context)
            actions.meters.count(.providerUnlink, .done)
            return .done
        } catch {
            actions.meters.count(.providerUnlink, .failed)
            logger.warning("account deletion: the provider's unlink failed", metadata: [
                "provider": "\(target.provider.rawValue)", "provider_id": "\(target.providerID)", "code": "\(error.code.rawValue)",
                "request_id": "\(context.requestID)",
            ])
            return .failed
        }
    }
}
