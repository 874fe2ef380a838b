import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// The Firebase Auth Admin API (`identitytoolkit.googleapis.com/v1/projects/{project}[/tenants/{tenant}]/accounts…`):
/// look up, create, update, delete, answered from the shared `FirebaseUserStore`, as Google answers them. Every call needs
/// an access token the token-endpoint stand-in (or, keyless, the metadata stand-in) issued; under the Auth Emulator's path prefix it takes `Bearer owner`,
/// as the emulator does. Mounted on the Identity Toolkit stand-in's server: both live at one base URL at Google too.
public final class AdminAPIStandIn: Sendable {
    /// The Auth Emulator serves everything under this prefix.
    public static let emulatorPrefix = "/identitytoolkit.googleapis.com"

    public enum Operation: String, Sendable, CaseIterable {
        case lookup = "accounts:lookup"
        case create = "accounts"
        case update = "accounts:update"
        case delete = "accounts:delete"

        var fields: Set<String> {
            switch self {
            case .lookup: ["localId", "email", "phoneNumber", "federatedUserId", "tenantId", "initialEmail"]
            case .create: ["localId", "displayName", "photoUrl", "email", "emailVerified", "disabled", "password", "phoneNumber", "tenantId"]
            case .update: [
                "localId", "displayName", "photoUrl", "email", "emailVerified", "disableUser", "validSince", "customAttributes",
                "deleteAttribute", "deleteProvider", "password", "phoneNumber", "tenantId",
            ]
            case .delete: ["localId", "tenantId"]
            }
        }
    }

    public let users: FirebaseUserStore
    public let projectID: String
    public let tenantID: String?
    /// Whose access tokens are accepted: the token endpoint's, and keyless the metadata server's.
    private let issuers: [any AccessTokenIssuing]

    private struct State {
        var fault = FaultSlot<StandInFault>()
        /// Only this operation's answers fail (`setFault(_:only:)`); the others answer.
        var faultOnly: Operation?
        var calls: [Operation: Int] = [:]
        var lastAuthorization: String?
        var lastBodies: [Operation: JSONValue] = [:]
        var lastRejection: String?
    }

    private let state = Mutex(State())

    public init(users: FirebaseUserStore, projectID: String, tenantID: String?, issuers: [any AccessTokenIssuing]) {
        self.users = users
        self.projectID = projectID
        self.tenantID = tenantID
        self.issuers = issuers
    }

    public func setFault(_ fault: StandInFault?, times: Int? = nil) {
        state.withLock {
            $0.fault.set(fault, times: times)
            $0.faultOnly = nil
        }
    }

    /// The fault for one operation only (an outage of `accounts:delete` while lookups answer).
    public func setFault(_ fault: StandInFault?, only operation: Operation, times: Int? = nil) {
        state.withLock {
            $0.fault.set(fault, times: times)
            $0.faultOnly = fault == nil ? nil : operation
        }
    }

    public func calls(_ operation: Operation) -> Int { state.withLock { $0.calls[operation] ?? 0 } }
    public var totalCalls: Int { state.withLock { $0.calls.values.reduce(0, +) } }
    public var lastAuthorization: String? { state.withLock { $0.lastAuthorization } }
    public func lastBody(_ operation: Operation) -> JSONValue? { state.withLock { $0.lastBodies[operation] } }
    public var lastRejection: String? { state.withLock { $0.lastRejection } }

    public func resetCounters() {
        state.withLock {
            $0.calls = [:]
            $0.lastRejection = nil
        }
    }

    /// Google's paths and the emulator's, with and without a tenant.
    func register(on router: Router<BasicRequestContext>) {
        for prefix in ["", Self.emulatorPrefix] {
            for operation in Operation.allCases {
                let emulated = !prefix.isEmpty
                router.post(RouterPath("\(prefix)/v1/projects/{project}/\(operation.rawValue)")) { request, context in
                    try await self.answer(operation, request, project: context.parameters.get("project"), tenant: nil, emulated: emulated)
                }
                router.post(RouterPath("\(prefix)/v1/projects/{project}/tenants/{tenant}/\(operation.rawValue)")) { request, context in
                    try await self.answer(
                        operation, request, project: context.parameters.get("project"), tenant: context.parameters.get("tenant"),
                        emulated: emulated
                    )
                }
            }
        }
    }

    // MARK: Checks

    private func answer(
        _ operation: Operation, _ request: Request, project: String?, tenant: String?, emulated: Bool
    ) async throws -> Response {
        let authorization = request.headers[.authorization]
        let fault = state.withLock { state -> StandInFault? in
            state.calls[operation, default: 0] += 1
            state.lastAuthorization = authorization
            if let only = state.faultOnly, only != operation { return nil }
            return state.fault.take()
        }
        if let replacement = try await fault?.apply() { return replacement }

        let bearer = request.bearerToken
        let authorized = emulated ? bearer == "owner" : bearer.map { token in issuers.contains { $0.isValid(token) } } ?? false
        guard authorized else {
            return reject(
                401, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                status: "UNAUTHENTICATED"
            )
        }
        guard project == projectID else {
            return reject(403, "The caller does not have permission", status: "PERMISSION_DENIED")
        }
        if let tenant, tenant != tenantID { return reject(400, "TENANT_NOT_FOUND") }
        guard request.mediaType == "application/json" else {
            return reject(400, "Invalid JSON payload received. Expected Content-Type application/json.")
        }
        guard let body = JSONValue.parse(try await request.bodyBytes()), let members = body.objectValue else {
            return reject(400, "Invalid JSON payload received. Unexpected token.")
        }
        if let unknown = members.keys.sorted().first(where: { !operation.fields.contains($0) }) {
            return reject(400, "Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
        }
        state.withLock { $0.lastBodies[operation] = body }
        switch operation {
        case .lookup: return lookup(members)
        case .create: return create(members)
        case .update: return update(members)
        case .delete: return delete(members)
        }
    }

    // MARK: Operations

    private func lookup(_ body: [String: JSONValue]) -> Response {
        var found: [JSONValue] = []
        for uid in body["localId"]?.arrayValue ?? [] {
            if let uid = uid.stringValue, let user = users.user(uid) { found.append(user.json) }
        }
        for email in body["email"]?.arrayValue ?? [] {
            if let email = email.stringValue, let user = users.user(email: email) { found.append(user.json) }
        }
        if body["localId"] == nil && body["email"] == nil { return reject(400, "MISSING_LOCAL_ID") }
        var answer: [String: JSONValue] = ["kind": .string("identitytoolkit#GetAccountInfoResponse")]
        // Google leaves `users` out when nothing matched.
        if !found.isEmpty { answer["users"] = .array(found) }
        return Reply.json(200, answer)
    }

    private func create(_ body: [String: JSONValue]) -> Response {
        let uid = body["localId"]?.stringValue ?? Base64URL.encode(SecureRandom.bytes(count: 21))
        guard (1...128).contains(uid.count) else { return reject(400, "INVALID_LOCAL_ID") }
        var user = users.newUser(uid)
        user.displayName = body["displayName"]?.stringValue
        user.photoURL = body["photoUrl"]?.stringValue
        user.email = body["email"]?.stringValue
        user.emailVerified = body["emailVerified"]?.boolValue ?? false
        user.disabled = body["disabled"]?.boolValue ?? false
        if let email = user.email, !email.contains("@") { return reject(400, "INVALID_EMAIL") }
        do {
            try users.create(user)
        } catch {
            return conflict(error)
        }
        return Reply.json(200, ["kind": .string("identitytoolkit#SignupNewUserResponse"), "localId": .string(uid)])
    }

    private func update(_ body: [String: JSONValue]) -> Response {
        guard let uid = body["localId"]?.stringValue else { return reject(400, "MISSING_LOCAL_ID") }
        var validSince: Int64?
        if let value = body["validSince"] {
            guard let seconds = value.int64Value ?? value.stringValue.flatMap({ Int64($0) }) else {
                return reject(400, "Invalid value at 'valid_since' (TYPE_INT64)")
            }
            validSince = seconds
        }
        if let email = body["email"]?.stringValue, !email.contains("@") { return reject(400, "INVALID_EMAIL") }
        let deleted = Set((body["deleteAttribute"]?.arrayValue ?? []).compactMap(\.stringValue))
        do {
            try users.update(uid) { user in
                if let name = body["displayName"]?.stringValue { user.displayName = name }
                if let photo = body["photoUrl"]?.stringValue { user.photoURL = photo }
                if let email = body["email"]?.stringValue { user.email = email }
                if let verified = body["emailVerified"]?.boolValue { user.emailVerified = verified }
                if let disabled = body["disableUser"]?.boolValue { user.disabled = disabled }
                if let validSince { user.validSince = validSince }
                if let attributes = body["customAttributes"]?.stringValue { user.customAttributes = attributes }
                if deleted.contains("DISPLAY_NAME") { user.displayName = nil }
                if deleted.contains("PHOTO_URL") { user.photoURL = nil }
            }
        } catch {
            return conflict(error)
        }
        return Reply.json(200, ["kind": .string("identitytoolkit#SetAccountInfoResponse"), "localId": .string(uid)])
    }

    private func delete(_ body: [String: JSONValue]) -> Response {
        guard let uid = body["localId"]?.stringValue else { return reject(400, "MISSING_LOCAL_ID") }
        do {
            try users.delete(uid)
        } catch {
            return conflict(error)
        }
        return Reply.json(200, ["kind": .string("identitytoolkit#DeleteAccountResponse")])
    }

    private func conflict(_ conflict: FirebaseUserStore.Conflict) -> Response {
        switch conflict {
        case .duplicateLocalID: reject(400, "DUPLICATE_LOCAL_ID")
        case .emailExists: reject(400, "EMAIL_EXISTS")
        case .userNotFound: reject(400, "USER_NOT_FOUND")
        }
    }

    private func reject(_ status: Int, _ message: String, status statusText: String = "INVALID_ARGUMENT") -> Response {
        state.withLock { $0.lastRejection = message }
        return GoogleError.response(status, message: message, statusText: statusText)
    }
}
