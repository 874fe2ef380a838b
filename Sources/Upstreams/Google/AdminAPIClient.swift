import BridgeJSON
import BridgeSupport
import CurlHTTP

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

/// The Firebase Auth Admin API: `POST {identity_toolkit_url}/v1/projects/{project}[/tenants/{tenant}]/accounts…`
/// (docs/api.md#firebase-user-records), exactly as the Firebase Admin SDKs call it.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct AdminAPIClient: FirebaseAdminCalling {
    private let upstream: Upstream
    /// `https://identitytoolkit.googleapis.com/v1`, or the emulator's `http://host:port/identitytoolkit.googleapis.com/v1`.
    private let base: String

    package init(upstream: Upstream, identityToolkitURL: String) {
        self.upstream = upstream
        let root = identityToolkitURL.withoutTrailingSlash
        self.base = root + "/v1"
    }

    // MARK: Entry point

    package func lookUp(_ key: AdminLookup, scope: AdminScope, context: CallContext) async throws(Problem) -> FirebaseUserRecord? {
        let reply: LookupReply = try await upstream.postJSON(
            url(scope, "accounts:lookup"), body: LookupRequest(key: key), headers: headers(scope), Self.lookupFailures,
            context: context
        )
        return reply.users.first
    }

    /// Not retried: a create that reached Google but lost its answer would come back as `DUPLICATE_LOCAL_ID`.
    package func create(_ user: NewFirebaseUser, scope: AdminScope, context: CallContext) async throws(Problem) -> AdminWriteOutcome {
        let response = try await upstream.post(
            url(scope, "accounts"), body: user, headers: headers(scope), Self.createFailures, context: context
        )
        return try Self.writeOutcome(response, Self.createFailures)
    }

    package func update(_ update: FirebaseUserUpdate, scope: AdminScope, context: CallContext) async throws(Problem) -> AdminWriteOutcome {
        let response = try await upstream.post(
            url(scope, "accounts:update"), body: update, headers: headers(scope), Self.updateFailures, context: context
        )
        return try Self.writeOutcome(response, Self.updateFailures)
    }

    package func delete(uid: String, scope: AdminScope, context: CallContext) async throws(Problem) {
        let response = try await upstream.post(
            url(scope, "accounts:delete"), body: DeleteRequest(uid: uid), headers: headers(scope), Self.deleteFailures,
            context: context
        )
        // Deleting a user who is already gone leaves the state the caller wanted.
        if (200..<300).contains(response.status) || GoogleErrorCode.parse(response.body).messageCode == "USER_NOT_FOUND" { return }
        throw Self.deleteFailures.unreadable
    }

    // MARK: Requests

    private func url(_ scope: AdminScope, _ method: String) -> String {
        var url = base + "/projects/" + Self.pathSegment(scope.projectID)
        if let tenant = scope.tenantID { url += "/tenants/" + Self.pathSegment(tenant) }
        return url + "/" + method
    }

    private func headers(_ scope: AdminScope) -> [(String, String)] { [("Authorization", "Bearer " + scope.bearer)] }

    /// Project and tenant ids are `[a-z0-9-]`; anything else is escaped rather than allowed to change the path.
    package static func pathSegment(_ text: String) -> String {
        FormCodec.escape(text).split(separator: "+", omittingEmptySubsequences: false).joined(separator: "%20")
    }

    package struct LookupRequest: JSONWritable {
        package var key: AdminLookup

        package init(key: AdminLookup) {
            self.key = key
        }

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            switch key {
            case .uid(let uid):
                writer.key("localId")
                writer.openArray()
                writer.string(uid)
                writer.closeArray()
            case .email(let email):
                writer.key("email")
                writer.openArray()
                writer.string(email)
                writer.closeArray()
            }
            writer.closeObject()
        }
    }

    package struct DeleteRequest: JSONWritable {
        package var uid: String

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("localId")
            writer.string(uid)
            writer.closeObject()
        }
    }

    // MARK: Answers

    /// `{"kind": …, "users": [...]}`; no `users` member when nothing matches.
    package struct LookupReply: JSONDecodable {
        package var users: [FirebaseUserRecord]

        package init(json: JSONValue) throws(JSONMismatch) {
            let list = try json.optional("users", \.arrayValue) ?? []
            users = []
            for element in list { users.append(try FirebaseUserRecord(json: element)) }
        }
    }

    /// A 2xx, or one of the conflicts the failure table handed over.
    package static func writeOutcome(_ response: HTTPResponse, _ failures: FailureMap) throws(Problem) -> AdminWriteOutcome {
        if (200..<300).contains(response.status) {
            guard JSONValue.parse(response.body)?["localId"]?.stringValue != nil else { throw failures.unreadable }
            return .done
        }
        switch GoogleErrorCode.parse(response.body).messageCode {
        case "EMAIL_EXISTS": return .emailExists
        case "DUPLICATE_LOCAL_ID": return .uidExists
        default: throw failures.unreadable
        }
    }

    // MARK: Failure table (docs/errors.md#from-google-s-token-endpoint-and-the-admin-api)

    /// Conflicts the caller resolves itself go back to it as answers: `EMAIL_EXISTS`, `DUPLICATE_LOCAL_ID`, and
    /// `USER_NOT_FOUND` on a delete.
    package static let handedBack: Set<String> = ["EMAIL_EXISTS", "DUPLICATE_LOCAL_ID", "USER_NOT_FOUND"]

    package static func failures(_ operation: String, retry: RetryPolicy, handsBack: Set<String> = []) -> FailureMap {
        FailureMap("the Admin API", unavailable: Problem.firebaseAdminUnavailable, retry: retry) { response in
            guard (400..<500).contains(response.status) else {
                return .init(
                    .firebaseAdminUnavailable("The Admin API answered \(operation) with HTTP \(response.status)."),
                    retryable: response.status >= 500
                )
            }
            let parsed = GoogleErrorCode.parse(response.body)
            if let code = parsed.messageCode, handsBack.contains(code) { return nil }
            // USER_DISABLED may come from an update of a disabled user; the rule "disabled users are refused" wins.
            if parsed.messageCode == "USER_DISABLED" { return .init(.userDisabled()) }
            return .init(.firebaseAdminRejected(
                "The Admin API refused \(operation) (HTTP \(response.status)): \(parsed.summary)."
            ))
        }
    }

    package static let lookupFailures = failures("accounts:lookup", retry: .google)
    package static let createFailures = failures("accounts (create)", retry: .none, handsBack: ["EMAIL_EXISTS", "DUPLICATE_LOCAL_ID"])
    package static let updateFailures = failures("accounts:update", retry: .google, handsBack: ["EMAIL_EXISTS"])
    package static let deleteFailures = failures("accounts:delete", retry: .google, handsBack: ["USER_NOT_FOUND"])
}
