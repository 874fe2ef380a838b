import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// Naver's profile API (`https://openapi.naver.com`), strict: `GET /v1/nid/me` with `Authorization: Bearer`, answered as
/// Naver documents it (`{"resultcode": "00", "message": "success", "response": {…}}`), its refusals with their
/// `resultcode` bodies (024 under HTTP 401, and under HTTP 200 as Naver sometimes sends it). Also builds Naver's unlink
/// callback (`연결 끊기 알림`) for a person, encrypted and signed as Naver does (docs/api.md#navers-unlink-callback).
public final class NaverStandIn: Sendable {
    public static let profilePath = "/v1/nid/me"

    /// A person as one Naver app sees them: the id is per application.
    public struct Account: Sendable, Equatable {
        public var id: String
        public var nickname: String?
        public var name: String?
        public var email: String?
        public var profileImage: String?

        public init(id: String, nickname: String? = nil, name: String? = nil, email: String? = nil, profileImage: String? = nil) {
            self.id = id
            self.nickname = nickname
            self.name = name
            self.email = email
            self.profileImage = profileImage
        }
    }

    /// What the next answers are instead of the real one.
    public enum Fault: Sendable, Equatable {
        /// `{"resultcode": "024", "message": "Authentication failed"}` with this HTTP status (401, or 200 as Naver sometimes does).
        case resultcode(String, status: Int)
        /// This status with Naver's error body for it (403 profile API off, 429, 500).
        case httpStatus(Int)
        case rawBody(String)
        case delay(Duration)
    }

    private struct State {
        var tokens: [String: Account] = [:]
        var fault = FaultSlot<Fault>()
        var calls = 0
        /// `POST /oauth2.0/revoke`'s next answers: this HTTP status with Naver's error body.
        var revokeFault = FaultSlot<Int>()
        var revokeCalls = 0
        /// The people whose token the revoke killed, in order.
        var revokedIDs: [String] = []
    }

    private let state = Mutex(State())
    public let clientID: String
    public let clientSecret: String

    public init(clientID: String = "sandboxNaverClient", clientSecret: String = "sandboxNaverSecret") {
        self.clientID = clientID
        self.clientSecret = clientSecret
    }

    /// A Naver access token for `account` (Naver's are at most 256 characters of `[A-Za-z0-9+/=]`).
    public func issueToken(for account: Account) -> String {
        let token = "AAAA" + Base64URL.encode(SecureRandom.bytes(count: 48)).replacing("-", with: "+").replacing("_", with: "/")
        state.withLock { $0.tokens[token] = account }
        return token
    }

    /// Naver then answers 024 for it (the person withdrew consent, or the token expired).
    public func revoke(_ token: String) { _ = state.withLock { $0.tokens.removeValue(forKey: token) } }

    /// Every token of the person stops working: what Naver does before it sends the unlink callback.
    public func unlink(id: String) {
        state.withLock { state in state.tokens = state.tokens.filter { $0.value.id != id } }
    }

    public func setFault(_ fault: Fault?, times: Int? = nil) { state.withLock { $0.fault.set(fault, times: times) } }
    /// The revoke's next answers are this status (503: `temporarily_unavailable`).
    public func setRevokeFault(_ status: Int?, times: Int? = nil) { state.withLock { $0.revokeFault.set(status, times: times) } }
    public var revokeCalls: Int { state.withLock { $0.revokeCalls } }
    /// The ids of the people whose live token the revoke ended.
    public var revokedIDs: [String] { state.withLock { $0.revokedIDs } }
    public var calls: Int { state.withLock { $0.calls } }

    /// The form body Naver posts to the unlink callback URL for the person `id` (docs/api.md#navers-unlink-callback):
    /// `encryptUniqueId` = base64url(IV ‖ AES-128-CBC(MD5(secret)[0..<16], id)), `signature` =
    /// base64url(HMAC-SHA256(key, "clientId=…&encryptUniqueId=…&timestamp=…")).
    public func unlinkCallbackForm(id: String, timestamp: Int64? = nil, secret: String? = nil) -> String {
        let key = Array(MD5.hash(Array((secret ?? clientSecret).utf8)).prefix(16))
        let iv = SecureRandom.bytes(count: 16)
        let encrypted = Base64URL.encode(iv + (AES128CBC.encrypt(key: key, iv: iv, plaintext: Array(id.utf8)) ?? []))
        let time = timestamp ?? Int64(Date().timeIntervalSince1970)
        let signed = "clientId=\(clientID)&encryptUniqueId=\(encrypted)&timestamp=\(time)"
        let signature = Base64URL.encode(HMACSHA256.authenticate(key: key, message: Array(signed.utf8)))
        return "clientId=\(clientID)&encryptUniqueId=\(encrypted)&timestamp=\(time)&signature=\(signature)"
    }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.get(RouterPath(Self.profilePath)) { request, _ in await self.answer(request) }
        // Naver's guide lists POST too.
        router.post(RouterPath(Self.profilePath)) { request, _ in await self.answer(request) }
        // nid.naver.com's (`naver.auth_base_url`): the tests and the sandbox serve both hosts from this one server.
        router.post(RouterPath(Self.revokePath)) { request, _ in await self.answerRevoke(request) }
        return try await StandInServer.start(name: "naver", router: router, logger: logger)
    }

    private func answer(_ request: Request) async -> Response {
        let fault = state.withLock { state in
            state.calls += 1
            return state.fault.take()
        }
        switch fault {
        case .resultcode(let code, let status):
            return Self.refusal(status, code: code)
        case .httpStatus(let status):
            return Reply.json(status, ["resultcode": .string(String(status)), "message": .string("error")], contentType: Self.json)
        case .rawBody(let body):
            return Reply.text(200, body, contentType: Self.json)
        case .delay(let duration):
            try? await Task.sleep(for: duration)
        case nil:
            break
        }
        guard let token = request.bearerToken else { return Self.refusal(401, code: "028") }
        guard let account = state.withLock({ $0.tokens[token] }) else { return Self.refusal(401, code: "024") }
        var profile: [String: JSONValue] = ["id": .string(account.id)]
        if let nickname = account.nickname { profile["nickname"] = .string(nickname) }
        if let name = account.name { profile["name"] = .string(name) }
        if let email = account.email { profile["email"] = .string(email) }
        if let image = account.profileImage { profile["profile_image"] = .string(image) }
        // Fields the service must never read.
        profile["enc_id"] = .string("internal")
        profile["gender"] = .string("U")
        return Reply.json(200, ["resultcode": "00", "message": "success", "response": .object(profile)], contentType: Self.json)
    }

    public static let revokePath = "/oauth2.0/revoke"

    /// RFC 7009 as Naver runs it: a form with `client_id`, `client_secret`, `token` and `token_type_hint`; 200 with an
    /// empty body, also for a token it does not know; 401 `unauthorized_client` for a wrong client; 400 `invalid_request`.
    private func answerRevoke(_ request: Request) async -> Response {
        let fault = state.withLock { state in
            state.revokeCalls += 1
            return state.revokeFault.take()
        }
        if let status = fault {
            return Reply.json(status, ["error": "temporarily_unavailable", "error_description": "error"], contentType: Self.json)
        }
        guard request.mediaType == "application/x-www-form-urlencoded", let body = try? await request.bodyBytes() else {
            return Reply.json(400, ["error": "invalid_request", "error_description": "form body required"], contentType: Self.json)
        }
        let fields = FormFields.parse(String(decoding: body, as: UTF8.self))
        guard fields["client_id"] == clientID, fields["client_secret"] == clientSecret else {
            return Reply.json(401, ["error": "unauthorized_client", "error_description": "Client authentication failed."], contentType: Self.json)
        }
        guard let token = fields["token"], !token.isEmpty, (fields["token_type_hint"] ?? "access_token") == "access_token" else {
            return Reply.json(400, ["error": "invalid_request", "error_description": "token required"], contentType: Self.json)
        }
        state.withLock { state in
            if let account = state.tokens.removeValue(forKey: token) { state.revokedIDs.append(account.id) }
        }
        return Reply.text(200, "", contentType: Self.json)
    }

    private static let json = "application/json;charset=utf-8"

    private static func refusal(_ status: Int, code: String) -> Response {
        let message = code == "028" ? "Authentication header not exists" : "Authentication failed"
        return Reply.json(status, ["resultcode": .string(code), "message": .string(message)], contentType: json)
    }
}
