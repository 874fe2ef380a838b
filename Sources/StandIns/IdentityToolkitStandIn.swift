import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// Google Identity Toolkit's `accounts:signInWithCustomToken`: verifies the custom token as Google does and answers with
/// an ID token signed by the securetoken keys. The user comes from the store the Admin API stand-in shares: a missing
/// one is created (`isNewUser`), a disabled one refused with `USER_DISABLED`, and its custom attributes go into the ID
/// token as custom claims. Under the Auth Emulator's path prefix the ID token is unsigned (`alg` `none`), as the
/// emulator issues it. The Admin API stand-in is served by the same server, as both share a host at Google.
public final class IdentityToolkitStandIn: Sendable {
    public static let path = "/v1/accounts:signInWithCustomToken"
    static let bodyFields: Set<String> = ["token", "returnSecureToken", "tenantId"]

    public let apiKey: String
    public let projectID: String
    public let tenantID: String?
    public let keys: SecureTokenKeys
    private let rules: CustomTokenRules
    private let now: @Sendable () -> Int64
    /// The project's users, shared with the Admin API stand-in.
    public let users: FirebaseUserStore
    /// Mounted on this stand-in's server when given.
    public let admin: AdminAPIStandIn?

    private struct State {
        var fault = FaultSlot<StandInFault>()
        var exchangeCalls = 0
        var acceptedTokens = 0
        var lastRejection: String?
        var lastAcceptedPayload: JSONValue?
    }

    private let state = Mutex(State())

    /// `serviceAccountKeyID`, when given, must be the custom token header's `kid` when it names one. `otherAccountKeys`:
    /// the account's Google-managed keys (the IAM stand-in's), which Google trusts for a custom token of that account too.
    public init(
        apiKey: String,
        projectID: String,
        serviceAccountEmail: String,
        serviceAccountPublicKey: RSAPublicKey,
        serviceAccountKeyID: String? = nil,
        otherAccountKeys: [(id: String, key: RSAPublicKey)] = [],
        keys: SecureTokenKeys,
        tenantID: String? = nil,
        users: FirebaseUserStore? = nil,
        admin: AdminAPIStandIn? = nil,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.users = admin?.users ?? users ?? FirebaseUserStore(now: now)
        self.admin = admin
        self.apiKey = apiKey
        self.projectID = projectID
        self.tenantID = tenantID
        self.keys = keys
        self.now = now
        self.rules = CustomTokenRules(
            serviceAccountEmail: serviceAccountEmail,
            keys: [CustomTokenRules.AccountKey(id: serviceAccountKeyID, key: serviceAccountPublicKey)]
                + otherAccountKeys.map { CustomTokenRules.AccountKey(id: $0.id, key: $0.key) },
            tenantID: tenantID
        )
    }

    public func setFault(_ fault: StandInFault?, times: Int? = nil) {
        state.withLock { $0.fault.set(fault, times: times) }
    }

    public var exchangeCalls: Int { state.withLock { $0.exchangeCalls } }
    /// Custom tokens that passed every check and were exchanged for an ID token.
    public var acceptedTokens: Int { state.withLock { $0.acceptedTokens } }
    /// Why the last refused request was refused (Google's message), for test diagnostics.
    public var lastRejection: String? { state.withLock { $0.lastRejection } }
    /// The payload of the last accepted custom token.
    public var lastAcceptedPayload: JSONValue? { state.withLock { $0.lastAcceptedPayload } }

    public func resetCounters() {
        state.withLock {
            $0.exchangeCalls = 0
            $0.acceptedTokens = 0
            $0.lastRejection = nil
        }
    }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.post(RouterPath(Self.path)) { request, _ in
            try await self.answer(request, emulated: false)
        }
        router.post(RouterPath(AdminAPIStandIn.emulatorPrefix + Self.path)) { request, _ in
            try await self.answer(request, emulated: true)
        }
        admin?.register(on: router)
        return try await StandInServer.start(name: "identitytoolkit", router: router, logger: logger)
    }

    private func answer(_ request: Request, emulated: Bool) async throws -> Response {
        let fault = state.withLock { state in
            state.exchangeCalls += 1
            return state.fault.take()
        }
        if let replacement = try await fault?.apply() {
            return replacement
        }

        let keys = request.uri.queryParameters.getAll("key")
        // The emulator takes any API key; Google only the project's.
        guard keys.count == 1, keys[0] == apiKey || emulated else {
            return reject(400, "API key not valid. Please pass a valid API key.", reason: "badRequest")
        }
        guard request.mediaType == "application/json" else {
            return reject(400, "Invalid JSON payload received. Expected Content-Type application/json.")
        }
        guard let body = JSONValue.parse(try await request.bodyBytes())?.objectValue else {
            return reject(400, "Invalid JSON payload received. Unexpected token.")
        }
        if let unknown = body.keys.sorted().first(where: { !Self.bodyFields.contains($0) }) {
            return reject(400, "Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.")
        }
        let returnSecureToken: Bool
        switch body["returnSecureToken"] {
        case nil: returnSecureToken = false
        case .bool(let value)?: returnSecureToken = value
        default: return reject(400, "Invalid value at 'return_secure_token' (TYPE_BOOL)")
        }
        if let tenant = body["tenantId"], tenant != tenantID.map(JSONValue.string) {
            return reject(400, "TENANT_ID_MISMATCH")
        }
        let token: String
        switch body["token"] {
        case nil, .string("")?: return reject(400, "MISSING_CUSTOM_TOKEN")
        case .string(let value)?: token = value
        default: return reject(400, "Invalid value at 'token' (TYPE_STRING)")
        }

        let now = self.now()
        switch rules.check(token, now: now) {
        case .failure(let rejection):
            return reject(400, rejection.message)
        case .success(let accepted):
            return try signIn(accepted, now: now, returnSecureToken: returnSecureToken, emulated: emulated)
        }
    }

    private func signIn(_ accepted: CustomTokenRules.Accepted, now: Int64, returnSecureToken: Bool, emulated: Bool) throws -> Response {
        let (user, isNewUser) = users.signIn(accepted.uid)
        if user.disabled { return reject(400, "USER_DISABLED") }
        state.withLock { state in
            state.acceptedTokens += 1
            state.lastAcceptedPayload = .object(accepted.payload)
        }
        var answer: [String: JSONValue] = [
            "kind": .string("identitytoolkit#VerifyCustomTokenResponse"),
            "isNewUser": .bool(isNewUser),
        ]
        // Google only hands out tokens when asked to; a bridge that forgets `returnSecureToken` gets none.
        if returnSecureToken {
            var payload = SecureTokenKeys.idTokenPayload(projectID: projectID, uid: accepted.uid, now: now, tenantID: tenantID)
            // Custom attributes set through the Admin API first, then the token's own claims, as Google merges them.
            if let attributes = user.customAttributes.flatMap({ JSONValue.parse(Array($0.utf8))?.objectValue }) {
                for (name, value) in attributes { payload[name] = value }
            }
            for (name, value) in accepted.claims {
                payload[name] = value
            }
            answer["idToken"] = .string(
                emulated ? try keys.signIDToken(header: ["alg": "none", "typ": "JWT"], payload: payload, signing: .none)
                    : try keys.signIDToken(payload: payload)
            )
            answer["refreshToken"] = .string("AMf-v" + Base64URL.encode(SecureRandom.bytes(count: 180)))
            answer["expiresIn"] = .string("3600")
        }
        return Reply.json(200, answer)
    }

    private func reject(_ status: Int, _ message: String, reason: String = "invalid") -> Response {
        state.withLock { $0.lastRejection = message }
        return GoogleError.response(status, message: message, reason: reason)
    }
}
