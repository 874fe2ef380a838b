import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// The IAM Service Account Credentials API's `signBlob`
/// (`POST /v1/projects/-/serviceAccounts/{email}:signBlob`, `{"payload": <base64>}`), checked as Google checks it: a
/// bearer token the metadata server issued (nothing else), the one account it knows, the role to sign as it
/// (`roles/iam.serviceAccountTokenCreator`, granted unless `denyTokenCreator()`), a JSON body with only `payload`
/// (and `delegates`). It signs with the account's Google-managed key, whose public part Identity Toolkit's stand-in
/// trusts for that account, as Google publishes every key of an account. Written independently of the bridge's code.
public final class IAMCredentialsStandIn: Sendable {
    public static let pathPrefix = "/v1/projects/-/serviceAccounts/"

    public let accountEmail: String
    /// The Google-managed key's id, answered as `keyId` (a custom token signed this way names none).
    public let keyID: String
    private let key: RSAPrivateKey
    private let tokens: any AccessTokenIssuing

    private struct State {
        var fault = FaultSlot<StandInFault>()
        var calls = 0
        var signed = 0
        var tokenCreator = true
        var lastRejection: String?
        var lastAuthorization: String?
    }

    private let state = Mutex(State())

    /// `tokens`: the metadata server stand-in, the only issuer of tokens this API accepts here.
    public init(accountEmail: String, tokens: any AccessTokenIssuing) throws {
        self.accountEmail = accountEmail
        self.tokens = tokens
        self.key = try RSAPrivateKey.generate(bits: 2048)
        self.keyID = hex(SecureRandom.bytes(count: 20))
    }

    public var publicKey: RSAPublicKey { key.publicKey }

    public func setFault(_ fault: StandInFault?, times: Int? = nil) {
        state.withLock { $0.fault.set(fault, times: times) }
    }

    /// The account loses `roles/iam.serviceAccountTokenCreator` on itself: every `signBlob` is 403 `PERMISSION_DENIED`.
    public func denyTokenCreator(_ denied: Bool = true) { state.withLock { $0.tokenCreator = !denied } }

    /// Requests received, faults included.
    public var calls: Int { state.withLock { $0.calls } }
    /// Blobs signed.
    public var signed: Int { state.withLock { $0.signed } }
    public var lastRejection: String? { state.withLock { $0.lastRejection } }
    public var lastAuthorization: String? { state.withLock { $0.lastAuthorization } }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.post(RouterPath("/v1/projects/{project}/serviceAccounts/{resource}")) { request, context in
            try await self.answer(request, project: context.parameters.get("project"), resource: context.parameters.get("resource"))
        }
        return try await StandInServer.start(name: "iamcredentials", router: router, logger: logger)
    }

    private func answer(_ request: Request, project: String?, resource: String?) async throws -> Response {
        let authorization = request.headers[.authorization]
        let fault = state.withLock { state in
            state.calls += 1
            state.lastAuthorization = authorization
            return state.fault.take()
        }
        if let replacement = try await fault?.apply() { return replacement }

        let bearer = request.bearerToken
        guard let bearer, tokens.isValid(bearer) else {
            return reject(
                401, "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
                status: "UNAUTHENTICATED"
            )
        }
        // `{email}:signBlob`, the email percent-encoded or not.
        let decoded = resource.map { FormFields.decode(Substring($0)) } ?? ""
        guard let colon = decoded.lastIndex(of: ":"), decoded[decoded.index(after: colon)...] == "signBlob" else {
            return reject(404, "Method not found.", status: "NOT_FOUND")
        }
        guard project == "-" else {
            return reject(400, "The project in the resource name must be \"-\".", status: "INVALID_ARGUMENT")
        }
        guard decoded[..<colon] == accountEmail else {
            return reject(404, "Not found; Gaia id not found for email \(decoded[..<colon])", status: "NOT_FOUND")
        }
        guard state.withLock({ $0.tokenCreator }) else {
            return reject(403, "Permission 'iam.serviceAccounts.signBlob' denied on resource (or it may not exist).", status: "PERMISSION_DENIED")
        }
        guard request.mediaType == "application/json" else {
            return reject(400, "Invalid JSON payload received. Expected Content-Type application/json.", status: "INVALID_ARGUMENT")
        }
        guard let body = JSONValue.parse(try await request.bodyBytes())?.objectValue else {
            return reject(400, "Invalid JSON payload received. Unexpected token.", status: "INVALID_ARGUMENT")
        }
        if let unknown = body.keys.sorted().first(where: { $0 != "payload" && $0 != "delegates" }) {
            return reject(400, "Invalid JSON payload received. Unknown name \"\(unknown)\": Cannot find field.", status: "INVALID_ARGUMENT")
        }
        guard case .string(let encoded)? = body["payload"], !encoded.isEmpty,
              let payload = Data(base64Encoded: encoded), !payload.isEmpty
        else {
            return reject(400, "Invalid value at 'payload' (TYPE_BYTES), Base64 decoding failed", status: "INVALID_ARGUMENT")
        }
        let signature = try key.signRS256(Array(payload))
        state.withLock { $0.signed += 1 }
        return Reply.json(200, ["keyId": .string(keyID), "signedBlob": .string(Data(signature).base64EncodedString())])
    }

    private func reject(_ status: Int, _ message: String, status statusText: String) -> Response {
        state.withLock { $0.lastRejection = "\(status) \(statusText): \(message)" }
        return GoogleError.response(status, message: message, statusText: statusText)
    }
}
