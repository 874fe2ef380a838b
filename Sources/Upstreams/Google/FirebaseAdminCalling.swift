/// Where an Admin API call goes and with which credential: the project (and tenant) of the configuration, and the bearer
/// token from `AccessTokenCache` (`owner` with the Auth Emulator).
public struct AdminScope: Sendable, Equatable {
    public var bearer: String
    public var projectID: String
    /// `nil` without `firebase.tenant_id`.
    public var tenantID: String?

    public init(bearer: String, projectID: String, tenantID: String?) {
        self.bearer = bearer
        self.projectID = projectID
        self.tenantID = (tenantID?.isEmpty ?? true) ? nil : tenantID
    }
}

/// `accounts:lookup` by one key.
public enum AdminLookup: Sendable, Equatable {
    case uid(String)
    case email(String)
}

/// A create or update either happened or ran into a conflict the caller resolves itself (docs/api.md#user-sync).
public enum AdminWriteOutcome: Sendable, Equatable {
    case done
    /// `EMAIL_EXISTS`: another user holds the email.
    case emailExists
    /// `DUPLICATE_LOCAL_ID`: the uid exists (another instance created it a moment ago).
    case uidExists
}

/// The Firebase Auth Admin API, the REST API the Firebase Admin SDKs call (docs/api.md#firebase-user-records). The real one
/// is `AdminAPIClient`; tests pass in-memory fakes. Every other refusal is a `firebase_admin_*` problem.
public protocol FirebaseAdminCalling: Sendable {
    /// `nil` when no user matches.
    func lookUp(_ key: AdminLookup, scope: AdminScope, context: CallContext) async throws(Problem) -> FirebaseUserRecord?
    func create(_ user: NewFirebaseUser, scope: AdminScope, context: CallContext) async throws(Problem) -> AdminWriteOutcome
    func update(_ update: FirebaseUserUpdate, scope: AdminScope, context: CallContext) async throws(Problem) -> AdminWriteOutcome
    func delete(uid: String, scope: AdminScope, context: CallContext) async throws(Problem)
}
