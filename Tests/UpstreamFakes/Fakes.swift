import BridgeJSON
import BridgeSupport
import OpenSSLCrypto
import StandIns
import Synchronization
import Upstreams

/// In-memory upstreams for router-level tests: `buildApplication` gets these instead of libcurl and the loopback
/// stand-ins. They answer at once and count their calls; the strict protocol checks stay with the stand-ins, which the
/// end-to-end tests keep using.

/// Kakao: a table of issued tokens. An unknown token is what Kakao says of one (-401).
package final class FakeKakao: KakaoVerifying {
    package init() {}
    private struct State {
        var tokens: [String: Result<VerifiedKakaoToken, Problem>] = [:]
        var failure: Problem?
        var failuresLeft: Int?
        var delay: Duration?
        var calls = 0
        var next = 0
    }

    private let state = Mutex(State())

    package func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken {
        let (outcome, delay) = state.withLock { state -> (Result<VerifiedKakaoToken, Problem>, Duration?) in
            state.calls += 1
            if let failure = state.failure {
                if let left = state.failuresLeft {
                    state.failuresLeft = left - 1
                    if left <= 1 { (state.failure, state.failuresLeft) = (nil, nil) }
                }
                return (.failure(failure), state.delay)
            }
            return (
                state.tokens[accessToken] ?? .failure(.invalidKakaoToken("Kakao does not accept the token (code -401).")), state.delay
            )
        }
        // A slow Kakao: the call is counted when it starts, as the stand-in counts a request when it arrives.
        if let delay { try? await Task.sleep(for: delay) }
        return try outcome.get()
    }

    /// A token for `user`, as Kakao would verify it (email only when valid and verified).
    package func issue(_ user: KakaoUser, expiresIn: Int64? = 3600) -> String {
        issue(.success(VerifiedKakaoToken(user: user, expiresIn: expiresIn)))
    }

    package func issue(_ outcome: Result<VerifiedKakaoToken, Problem>) -> String {
        state.withLock { state in
            state.next += 1
            let token = "fake-kakao-token-\(state.next)"
            state.tokens[token] = outcome
            return token
        }
    }

    package func expire(_ token: String) {
        state.withLock { $0.tokens[token] = .failure(.invalidKakaoToken("The Kakao token has expired.")) }
    }

    /// Every call fails with `problem` (an outage, a quota) until set back to `nil`, or only the next `times` calls.
    package func fail(with problem: Problem?, times: Int? = nil) {
        state.withLock { ($0.failure, $0.failuresLeft) = (problem, problem == nil ? nil : times) }
    }

    /// Every call takes `delay` before it answers (`nil`: at once).
    package func delay(_ delay: Duration?) { state.withLock { $0.delay = delay } }

    package var calls: Int { state.withLock { $0.calls } }
}

/// Identity Toolkit: signs an ID token for the custom token's uid with the fake certificate keys, as Google would.
package final class FakeIdentityToolkit: IdentityToolkitExchanging {
    private let keys: SecureTokenKeys
    private let projectID: String
    private let failure = Mutex<Problem?>(nil)
    private let count = Mutex(0)
    private let newUser = Atomic<Bool>(true)

    package init(keys: SecureTokenKeys, projectID: String) {
        self.keys = keys
        self.projectID = projectID
    }

    package func signIn(customToken: String, context: CallContext) async throws(Problem) -> FirebaseSession {
        count.withLock { $0 += 1 }
        if let failure = failure.withLock({ $0 }) { throw failure }
        let payload = customToken.split(separator: ".").dropFirst().first
            .flatMap { Base64URL.decode(String($0)) }.flatMap { JSONValue.parse($0) }
        guard let uid = payload?["uid"]?.stringValue else { throw Problem.firebaseRejected("INVALID_CUSTOM_TOKEN") }
        let now = UnixClock.system.now()
        guard let idToken = try? keys.signIDToken(payload: SecureTokenKeys.idTokenPayload(projectID: projectID, uid: uid, now: now)) else {
            throw Problem.firebaseUnavailable("the fake could not sign")
        }
        return FirebaseSession(
            idToken: idToken, refreshToken: "fake-refresh-" + uid, expiresIn: 3600, isNewUser: newUser.load(ordering: .relaxed)
        )
    }

    package func fail(with problem: Problem?) { failure.withLock { $0 = problem } }
    /// What `isNewUser` says (Google says false once the user sync created the user).
    package func reportNewUser(_ value: Bool) { newUser.store(value, ordering: .relaxed) }

    package var calls: Int { count.withLock { $0 } }
}

/// The backend: records what it was sent and answers with a settable status and body. Like the backend stand-in, it can
/// ask the bridge's hook who the user is before it answers (`callHook`); then a hook refusal becomes its answer's status.
package final class FakeBackend: BackendCompleting {
    package init() {}
    /// Posts the login body to the hook and returns the hook's status.
    package typealias HookCaller = @Sendable (_ body: String) async throws -> Int

    private struct State {
        var answer = LoginResult(status: 200, body: ["meta": ["code": 200]])
        var failure: Problem?
        var received: [(kakaoToken: String, idToken: String)] = []
        var hook: HookCaller?
        var lastHookStatus: Int?
    }

    private let state = Mutex(State())

    package func completeLogin(kakaoToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult {
        let (outcome, hook) = state.withLock { state -> (Result<LoginResult, Problem>, HookCaller?) in
            state.received.append((kakaoToken, idToken))
            state.lastHookStatus = nil
            if let failure = state.failure { return (.failure(failure), nil) }
            return (.success(state.answer), state.hook)
        }
        if let hook {
            // The body the real client sends (`BackendClient.LoginBody`), as an app's backend would receive it.
            let body = BackendClient.LoginBody(kakaoToken: kakaoToken, idToken: idToken)
            let status = (try? await hook(String(decoding: body.jsonBytes, as: UTF8.self))) ?? 502
            state.withLock { $0.lastHookStatus = status }
            if status != 200 { return LoginResult(status: status, body: ["meta": ["code": .int(Int64(status))]]) }
        }
        return try outcome.get()
    }

    package func answer(_ result: LoginResult) { state.withLock { $0.answer = result } }
    package func fail(with problem: Problem?) { state.withLock { $0.failure = problem } }
    package func callHook(_ hook: HookCaller?) { state.withLock { $0.hook = hook } }
    package var received: [(kakaoToken: String, idToken: String)] { state.withLock { $0.received } }
    /// The hook's status on the last login, nil when there was no hook call.
    package var lastHookStatus: Int? { state.withLock { $0.lastHookStatus } }
}

/// Google's certificate endpoint: the published keys of a `SecureTokenKeys`, or a failure.
package final class FakeCertificates: PublicKeySetFetching {
    package let keys: SecureTokenKeys
    private let failing = Atomic<Bool>(false)
    private let count = Atomic<Int>(0)
    package let maxAge: Int64?

    package init(keys: SecureTokenKeys, maxAge: Int64? = 3600) {
        self.keys = keys
        self.maxAge = maxAge
    }

    package func fetchKeys(context: CallContext) async throws(Problem) -> PublicKeySet {
        count.add(1, ordering: .relaxed)
        if failing.load(ordering: .relaxed) { throw Problem.firebaseUnavailable("Google's certificate endpoint answered HTTP 503.") }
        var published: [String: RSAPublicKey] = [:]
        for key in keys.publishedKeys { published[key.kid] = key.privateKey.publicKey }
        return PublicKeySet(keys: published, maxAge: maxAge)
    }

    package func setFailing(_ value: Bool) { failing.store(value, ordering: .relaxed) }
    package var fetchCount: Int { count.load(ordering: .relaxed) }
}

/// Kakao's JWKS endpoint: the published keys of a `KakaoOIDCKeys`, or a failure; counts fetches.
package final class FakeKakaoKeys: PublicKeySetFetching {
    package let keys: KakaoOIDCKeys
    private let failing = Atomic<Bool>(false)
    /// A failure other than the endpoint's 503 (`fail(with:)`): a fetch past its deadline, say.
    private let failure = Mutex<Problem?>(nil)
    private let count = Atomic<Int>(0)
    package let maxAge: Int64?

    package init(keys: KakaoOIDCKeys, maxAge: Int64? = nil) {
        self.keys = keys
        self.maxAge = maxAge
    }

    package func fetchKeys(context: CallContext) async throws(Problem) -> PublicKeySet {
        count.add(1, ordering: .relaxed)
        if failing.load(ordering: .relaxed) { throw Problem.kakaoUnavailable("Kakao's JWKS endpoint answered HTTP 503.") }
        if let problem = failure.withLock({ $0 }) { throw problem }
        var published: [String: RSAPublicKey] = [:]
        for key in (try? keys.publishedKeys) ?? [] { published[key.kid] = key.privateKey.publicKey }
        return PublicKeySet(keys: published, maxAge: maxAge)
    }

    package func setFailing(_ value: Bool) { failing.store(value, ordering: .relaxed) }
    package func fail(with problem: Problem?) { failure.withLock { $0 = problem } }
    package var fetchCount: Int { count.load(ordering: .relaxed) }
}

/// Google's token endpoint: hands out numbered access tokens and counts fetches; can fail, or be slow so that tests see
/// concurrent callers wait for one fetch.
package final class FakeGoogleTokens: GoogleAccessTokenFetching {
    package init() {}
    private struct State {
        var fetches = 0
        var failure: Problem?
        var expiresIn: Int64 = 3600
        var delay: Duration?
        var accounts: [String] = []
    }

    private let state = Mutex(State())

    package func fetchAccessToken(for account: ServiceAccount, context: CallContext) async throws(Problem) -> GoogleAccessToken {
        let (number, failure, expiresIn, delay) = state.withLock { state in
            state.fetches += 1
            state.accounts.append(account.clientEmail)
            return (state.fetches, state.failure, state.expiresIn, state.delay)
        }
        if let delay { try? await Task.sleep(for: delay) }
        if let failure { throw failure }
        return GoogleAccessToken(token: "fake-access-token-\(number)", expiresIn: expiresIn)
    }

    package func fail(with problem: Problem?) { state.withLock { $0.failure = problem } }
    package func answer(expiresIn: Int64) { state.withLock { $0.expiresIn = expiresIn } }
    package func delay(_ duration: Duration?) { state.withLock { $0.delay = duration } }
    package var fetches: Int { state.withLock { $0.fetches } }
    /// The latest token handed out: what the Admin fake accepts.
    package var latestToken: String { state.withLock { "fake-access-token-\($0.fetches)" } }
}

/// The Admin API over an in-memory user store, with Google's conflicts (`EMAIL_EXISTS`, `DUPLICATE_LOCAL_ID`); records
/// every call with its scope, and can fail every call of one operation (or all) with a problem.
package final class FakeFirebaseAdmin: FirebaseAdminCalling {
    package init() {}
    package enum Call: Equatable {
        case lookUp(AdminLookup)
        case create(NewFirebaseUser)
        case update(FirebaseUserUpdate)
        case delete(String)

        package var operation: String {
            switch self {
            case .lookUp: "lookup"
            case .create: "create"
            case .update: "update"
            case .delete: "delete"
            }
        }
    }

    private struct State {
        var users: [String: FirebaseUserRecord] = [:]
        var calls: [(call: Call, scope: AdminScope)] = []
        var failures: [String: Problem] = [:]
        /// Emails some other user (outside what the test seeded) holds.
        var takenEmails: Set<String> = []
        /// Email look-ups wait until this many have arrived (or two seconds pass): two logins then both read the
        /// account before either writes, whatever the scheduler does.
        var emailLookUpBarrier = 0
        var emailLookUps = 0
    }

    private let state = Mutex(State())

    package func lookUp(_ key: AdminLookup, scope: AdminScope, context: CallContext) async throws(Problem) -> FirebaseUserRecord? {
        try record(.lookUp(key), scope).get()
        // Read on arrival, as Google answers from the state it saw, however long the answer then takes.
        let found = state.withLock { state in
            switch key {
            case .uid(let uid): state.users[uid]
            case .email(let email): state.users.values.first { $0.email == email }
            }
        }
        if case .email = key {
            let barrier = state.withLock { state -> Int in
                state.emailLookUps += 1
                return state.emailLookUpBarrier
            }
            let giveUp = ContinuousClock.now + .seconds(2)
            while state.withLock({ $0.emailLookUps }) < barrier, ContinuousClock.now < giveUp {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        return found
    }

    package func create(_ user: NewFirebaseUser, scope: AdminScope, context: CallContext) async throws(Problem) -> AdminWriteOutcome {
        try record(.create(user), scope).get()
        return state.withLock { state in
            if state.users[user.uid] != nil { return .uidExists }
            if let email = user.email, Self.emailTaken(email, by: nil, in: state) { return .emailExists }
            state.users[user.uid] = FirebaseUserRecord(
                uid: user.uid, displayName: user.displayName, photoURL: user.photoURL, email: user.email,
                emailVerified: user.emailVerified ?? false, disabled: user.disabled ?? false, validSince: UnixClock.system.now()
            )
            return .done
        }
    }

    package func update(_ update: FirebaseUserUpdate, scope: AdminScope, context: CallContext) async throws(Problem) -> AdminWriteOutcome {
        try record(.update(update), scope).get()
        let outcome = state.withLock { state -> Result<AdminWriteOutcome, Problem> in
            guard var user = state.users[update.uid] else {
                return .failure(.firebaseAdminRejected("The Admin API refused accounts:update (HTTP 400): USER_NOT_FOUND."))
            }
            if let email = update.email, Self.emailTaken(email, by: update.uid, in: state) { return .success(.emailExists) }
            if let name = update.displayName { user.displayName = name }
            if let photo = update.photoURL { user.photoURL = photo }
            if let email = update.email { user.email = email }
            if let verified = update.emailVerified { user.emailVerified = verified }
            if let disabled = update.disabled { user.disabled = disabled }
            if let validSince = update.validSince { user.validSince = validSince }
            if let attributes = update.customAttributes { user.customAttributes = attributes }
            if update.deleteAttributes.contains(.displayName) { user.displayName = nil }
            if update.deleteAttributes.contains(.photoURL) { user.photoURL = nil }
            state.users[update.uid] = user
            return .success(.done)
        }
        return try outcome.get()
    }

    package func delete(uid: String, scope: AdminScope, context: CallContext) async throws(Problem) {
        try record(.delete(uid), scope).get()
        _ = state.withLock { $0.users.removeValue(forKey: uid) }
    }

    private func record(_ call: Call, _ scope: AdminScope) -> Result<Void, Problem> {
        state.withLock { state in
            state.calls.append((call, scope))
            if let failure = state.failures[call.operation] ?? state.failures["*"] { return .failure(failure) }
            return .success(())
        }
    }

    private static func emailTaken(_ email: String, by uid: String?, in state: State) -> Bool {
        state.takenEmails.contains(email) || state.users.values.contains { $0.email == email && $0.uid != uid }
    }

    // MARK: Test controls

    package func seed(_ user: FirebaseUserRecord) { state.withLock { $0.users[user.uid] = user } }
    package func user(_ uid: String) -> FirebaseUserRecord? { state.withLock { $0.users[uid] } }
    package func takeEmail(_ email: String) { state.withLock { _ = $0.takenEmails.insert(email) } }
    package func holdEmailLookUps(until count: Int) { state.withLock { $0.emailLookUpBarrier = count } }
    /// `operation` is `lookup`, `create`, `update`, `delete` or `*`.
    package func fail(_ operation: String = "*", with problem: Problem?) { state.withLock { $0.failures[operation] = problem } }
    package var calls: [Call] { state.withLock { $0.calls.map(\.call) } }
    package var scopes: [AdminScope] { state.withLock { $0.calls.map(\.scope) } }
    package func resetCalls() { state.withLock { $0.calls.removeAll() } }
}

/// The backend's unlink URL: records every notice; can fail with a problem.
package final class FakeUnlinkNotifier: UnlinkNotifying {
    package init() {}
    private struct State {
        var notices: [UnlinkNotice] = []
        var failure: Problem?
    }

    private let state = Mutex(State())

    package func notify(_ notice: UnlinkNotice, context: CallContext) async throws(Problem) {
        let failure = state.withLock { state -> Problem? in
            if let failure = state.failure { return failure }
            state.notices.append(notice)
            return nil
        }
        if let failure { throw failure }
    }

    package func fail(with problem: Problem?) { state.withLock { $0.failure = problem } }
    package var notices: [UnlinkNotice] { state.withLock { $0.notices } }
}

/// Google Cloud's metadata server in memory (keyless, `firebase.signer: iam`): one account, one project, numbered tokens.
package final class FakeMetadataServer: MetadataServerCalling {
    private struct State {
        var tokens = 0
        var failure: Problem?
    }

    package let email: String
    package let project: String
    private let state = Mutex(State())

    package init(email: String = "runtime@bridge-router-test.iam.gserviceaccount.com", project: String = "bridge-router-test") {
        self.email = email
        self.project = project
    }

    package func serviceAccountEmail(context: CallContext) async throws(Problem) -> String {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return email
    }

    package func projectID(context: CallContext) async throws(Problem) -> String {
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return project
    }

    package func accessToken(context: CallContext) async throws(Problem) -> GoogleAccessToken {
        let (number, failure) = state.withLock { state in
            state.tokens += 1
            return (state.tokens, state.failure)
        }
        if let failure { throw failure }
        return GoogleAccessToken(token: "fake-metadata-token-\(number)", expiresIn: 3599)
    }

    package func fail(with problem: Problem?) { state.withLock { $0.failure = problem } }
    package var tokenFetches: Int { state.withLock { $0.tokens } }
}

/// IAM `signBlob` in memory: signs with a key of its own, and remembers the bearer tokens it was shown.
package final class FakeIAMCredentials: BlobSigning {
    private struct State {
        var bearers: [String] = []
        var failure: Problem?
    }

    package let key: RSAPrivateKey
    private let state = Mutex(State())

    package init(key: RSAPrivateKey) { self.key = key }

    package func signBlob(_ bytes: [UInt8], account: String, bearer: String, context: CallContext) async throws(Problem) -> [UInt8] {
        let failure = state.withLock { state in
            state.bearers.append(bearer)
            return state.failure
        }
        if let failure { throw failure }
        do {
            return try key.signRS256(bytes)
        } catch {
            throw Problem.iamUnavailable("the fake could not sign")
        }
    }

    package func fail(with problem: Problem?) { state.withLock { $0.failure = problem } }
    package var bearers: [String] { state.withLock { $0.bearers } }
}

/// A provider's unlink of an account deletion (docs/api.md#deleting-an-account): records what it unlinked; Kakao's
/// `failingKakaoID` is an outage (the deletion then stays pending).
package final class FakeProviderUnlink: ProviderUnlinking {
    package init() {}
    package static let failingKakaoID: Int64 = 13

    private let unlinked = Mutex<[UnlinkSubject]>([])

    package func unlink(_ subject: UnlinkSubject, context: CallContext) async throws(Problem) {
        if case .kakaoUserID(Self.failingKakaoID) = subject { throw Problem.kakaoUnavailable("Kakao answered HTTP 500.") }
        unlinked.withLock { $0.append(subject) }
    }

    package var count: Int { unlinked.withLock { $0.count } }
}
