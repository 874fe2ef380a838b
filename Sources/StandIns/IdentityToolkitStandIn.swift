import BridgeJSON
import Foundation
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// Google Identity Toolkit's `accounts:signInWithCustomToken`: verifies the custom token as Google does
/// and answers with an ID token signed by the securetoken keys.
public final class IdentityToolkitStandIn: Sendable {
    public static let path = "/v1/accounts:signInWithCustomToken"
    static let bodyFields: Set<String> = ["token", "returnSecureToken", "tenantId"]

    public let apiKey: String
    public let projectID: String
    public let tenantID: String?
    public let keys: SecureTokenKeys
    private let rules: CustomTokenRules
    private let now: @Sendable () -> Int64

    private struct State {
        var fault = FaultSlot<StandInFault>()
        var exchangeCalls = 0
        var acceptedTokens = 0
        var lastRejection: String?
        var lastAcceptedPayload: JSONValue?
        var knownUIDs: Set<String> = []
    }

    private let state = Mutex(State())

    /// `serviceAccountKeyID`, when given, must be the custom token header's `kid`.
    public init(
        apiKey: String,
        projectID: String,
        serviceAccountEmail: String,
        serviceAccountPublicKey: RSAPublicKey,
        serviceAccountKeyID: String? = nil,
        keys: SecureTokenKeys,
        tenantID: String? = nil,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.apiKey = apiKey
        self.projectID = projectID
        self.tenantID = tenantID
        self.keys = keys
        self.now = now
        self.rules = CustomTokenRules(
            serviceAccountEmail: serviceAccountEmail,
            publicKey: serviceAccountPublicKey,
            keyID: serviceAccountKeyID,
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
            try await self.answer(request)
        }
        return try await StandInServer.start(name: "identitytoolkit", router: router, logger: logger)
    }

    private func answer(_ request: Request) async throws -> Response {
        let fault = state.withLock { state in
            state.exchangeCalls += 1
            return state.fault.take()
        }
        if let replacement = try await fault?.apply() {
            return replacement
        }

        let keys = request.uri.queryParameters.getAll("key")
        guard keys.count == 1, keys[0] == apiKey else {
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
            return try signIn(accepted, now: now, returnSecureToken: returnSecureToken)
        }
    }

    private func signIn(_ accepted: CustomTokenRules.Accepted, now: Int64, returnSecureToken: Bool) throws -> Response {
        let isNewUser = state.withLock { state in
            state.acceptedTokens += 1
            state.lastAcceptedPayload = .object(accepted.payload)
            return state.knownUIDs.insert(accepted.uid).inserted
        }
        var answer: [String: JSONValue] = [
            "kind": .string("identitytoolkit#VerifyCustomTokenResponse"),
            "isNewUser": .bool(isNewUser),
        ]
        // Google only hands out tokens when asked to; a bridge that forgets `returnSecureToken` gets none.
        if returnSecureToken {
            var payload = SecureTokenKeys.idTokenPayload(projectID: projectID, uid: accepted.uid, now: now, tenantID: tenantID)
            for (name, value) in accepted.claims {
                payload[name] = value
            }
            answer["idToken"] = .string(try keys.signIDToken(payload: payload))
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
