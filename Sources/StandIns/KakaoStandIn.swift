import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// The Kakao REST API (`https://kapi.kakao.com`): token info and user profile, answering like Kakao does. With OpenID
/// Connect, also Kakao's JWKS (`https://kauth.kakao.com/.well-known/jwks.json`, here on the same server) and the ID tokens
/// Kakao Login hands the app next to the access token, signed by `oidcKeys`.
public final class KakaoStandIn: Sendable {
    public static let jwksPath = "/.well-known/jwks.json"

    public let appID: Int64
    /// The keys ID tokens are signed with and the JWKS publishes; `rotate()` them to test rotation.
    public let oidcKeys: KakaoOIDCKeys

    private struct IssuedToken {
        var user: KakaoAccount
        var appID: Int64
        var expiresAt: ContinuousClock.Instant
    }

    private struct State {
        var tokens: [String: IssuedToken] = [:]
        var tokenInfoFault = FaultSlot<KakaoFault>()
        var userMeFault = FaultSlot<KakaoFault>()
        var tokenInfoCalls = 0
        var userMeCalls = 0
        var inFlight = 0
        var peakInFlight = 0
        var jwksCalls = 0
        var jwksFailing = false
        var jwksMaxAge: Int? = 3600
        var pusher: SecurityEventPusher?
        /// The app's admin key, which the unlink API takes; nil: the unlink API refuses every call.
        var adminKey: String?
        /// The users linked to the app: anyone a token was issued to, until unlinked.
        var linked: Set<Int64> = []
        var unlinkFault = FaultSlot<KakaoFault>()
        /// The ids the unlink API unlinked (its -101 answers are not listed).
        var unlinkedByAdmin: [Int64] = []
        var unlinkCalls = 0
    }

    private let state = Mutex(State())

    public init(appID: Int64, oidcKeys: KakaoOIDCKeys = KakaoOIDCKeys()) {
        self.appID = appID
        self.oidcKeys = oidcKeys
    }

    /// The URL to configure as `kakao.oidc.jwks_url`.
    public static func jwksURL(on server: StandInServer) -> String { server.baseURL + jwksPath }

    /// The ID token Kakao Login returns for `user` when the app logged in with app key `audience` and passed `nonce`.
    public func issueIDToken(
        for user: KakaoAccount, audience: String, nonce: String?, issuedAt: Int64? = nil, lifetime: Int64 = 43_199
    ) throws -> String {
        let now = issuedAt ?? Int64(Date().timeIntervalSince1970)
        state.withLock { _ = $0.linked.insert(user.id) }
        return try oidcKeys.signIDToken(
            payload: KakaoOIDCKeys.idTokenPayload(for: user, audience: audience, nonce: nonce, now: now, lifetime: lifetime)
        )
    }

    /// Where `POST /sandbox/security-events` sends SETs (the sandbox sets it before `start`).
    public var securityEventPusher: SecurityEventPusher? {
        get { state.withLock { $0.pusher } }
        set { state.withLock { $0.pusher = newValue } }
    }

    /// While failing, the JWKS endpoint answers 503.
    public func setJWKSFailing(_ failing: Bool) { state.withLock { $0.jwksFailing = failing } }
    /// `Cache-Control: max-age` of the JWKS answer; `nil` sends none.
    public func setJWKSMaxAge(_ seconds: Int?) { state.withLock { $0.jwksMaxAge = seconds } }
    public var jwksCalls: Int { state.withLock { $0.jwksCalls } }
    /// Calls of Kakao's REST API (token info and profile): what an access-token login costs, and an ID-token login does not.
    public var apiCalls: Int { state.withLock { $0.tokenInfoCalls + $0.userMeCalls } }

    /// A random opaque token the way Kakao issues them (54 url-safe characters).
    /// `appID` nil means our app; any other value makes a token issued to another Kakao app.
    public func issueToken(for user: KakaoAccount, appID: Int64? = nil, expiresIn: Int = 21599) -> String {
        let token = Base64URL.encode(SecureRandom.bytes(count: 40))
        let issued = IssuedToken(
            user: user,
            appID: appID ?? self.appID,
            expiresAt: .now + .seconds(expiresIn)
        )
        state.withLock {
            $0.tokens[token] = issued
            $0.linked.insert(user.id)
        }
        return token
    }

    /// Kakao then answers -401 "this access token is already expired" for it.
    public func expire(_ token: String) {
        state.withLock { $0.tokens[token]?.expiresAt = .now - .seconds(1) }
    }

    /// Kakao then answers -401 "this access token does not exist" for it (logout, unlink).
    public func revoke(_ token: String) {
        _ = state.withLock { $0.tokens.removeValue(forKey: token) }
    }

    /// What Kakao does when a person unlinks the app (before it calls the unlink webhook): every token of theirs stops
    /// working. Returns how many there were.
    @discardableResult
    public func unlink(userID: Int64) -> Int {
        state.withLock { state in
            let theirs = state.tokens.filter { $0.value.user.id == userID }.map(\.key)
            for token in theirs { state.tokens[token] = nil }
            state.linked.remove(userID)
            return theirs.count
        }
    }

    /// `times` nil keeps the fault until it is cleared with `setFault(nil)`; otherwise it clears itself
    /// after that many answers (per endpoint).
    public func setFault(_ fault: KakaoFault?, endpoint: KakaoEndpoint = .both, times: Int? = nil) {
        state.withLock {
            if endpoint != .userMe { $0.tokenInfoFault.set(fault, times: times) }
            if endpoint != .tokenInfo { $0.userMeFault.set(fault, times: times) }
        }
    }

    public var tokenInfoCalls: Int { state.withLock { $0.tokenInfoCalls } }
    public var userMeCalls: Int { state.withLock { $0.userMeCalls } }
    /// The most requests Kakao was handling at once, for in-flight limit assertions.
    public var peakConcurrentCalls: Int { state.withLock { $0.peakInFlight } }

    public func resetCounters() {
        state.withLock {
            $0.tokenInfoCalls = 0
            $0.userMeCalls = 0
            $0.peakInFlight = $0.inFlight
            $0.jwksCalls = 0
        }
    }

    /// The admin key the unlink API accepts (`Authorization: KakaoAK <key>`).
    public var adminKey: String? {
        get { state.withLock { $0.adminKey } }
        set { state.withLock { $0.adminKey = newValue } }
    }

    /// The ids unlinked through the admin-key unlink API, in order.
    public var unlinkedByAdmin: [Int64] { state.withLock { $0.unlinkedByAdmin } }
    /// Calls of the unlink API, refused ones too.
    public var unlinkCalls: Int { state.withLock { $0.unlinkCalls } }

    /// The unlink API's next answers (`times` nil: until cleared with nil).
    public func setUnlinkFault(_ fault: KakaoFault?, times: Int? = nil) { state.withLock { $0.unlinkFault.set(fault, times: times) } }

    /// Whether `userID` is still linked to the app.
    public func isLinked(_ userID: Int64) -> Bool { state.withLock { $0.linked.contains(userID) } }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.post("/v1/user/unlink") { request, _ in
            await self.answerUnlink(request)
        }
        router.post("/sandbox/security-events") { request, _ -> Response in
            guard let pusher = self.securityEventPusher else {
                return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: .init(byteBuffer: ByteBuffer(string: "this stand-in sends no security events\n")))
            }
            return try await pusher.answer(request)
        }
        router.get("/v1/user/access_token_info") { request, _ in
            await self.answer(.tokenInfo, request)
        }
        router.get("/v2/user/me") { request, _ in
            await self.answer(.userMe, request)
        }
        router.get(RouterPath(Self.jwksPath)) { _, _ in
            self.answerJWKS()
        }
        return try await StandInServer.start(name: "kakao", router: router, logger: logger)
    }

    private func answer(_ endpoint: KakaoEndpoint, _ request: Request) async -> Response {
        let fault = state.withLock { state in
            state.inFlight += 1
            state.peakInFlight = max(state.peakInFlight, state.inFlight)
            if endpoint == .tokenInfo {
                state.tokenInfoCalls += 1
                return state.tokenInfoFault.take()
            } else {
                state.userMeCalls += 1
                return state.userMeFault.take()
            }
        }
        defer { state.withLock { $0.inFlight -= 1 } }

        var answerAnotherUser = false
        switch fault {
        case .delay(let duration):
            try? await Task.sleep(for: duration)
        case .errorCode(let code, let status):
            return Self.error(status, code: code, KakaoFault.message(for: code))
        case .httpStatus(let status, let body):
            return Reply.text(status, body, contentType: Reply.kakaoJSON)
        case .rawBody(let body, let contentType):
            return Reply.text(200, body, contentType: contentType)
        case .mismatchedUserMe:
            answerAnotherUser = endpoint == .userMe
        case nil:
            break
        }

        guard let token = request.bearerToken else {
            return Self.error(400, code: -2, "authorization header is missing or malformed")
        }
        guard let issued = state.withLock({ $0.tokens[token] }) else {
            return Self.error(401, code: -401, "this access token does not exist")
        }
        let remaining = ContinuousClock.now.duration(to: issued.expiresAt).components.seconds
        guard remaining > 0 else {
            return Self.error(401, code: -401, "this access token is already expired")
        }

        if endpoint == .tokenInfo {
            return Reply.json(
                200,
                [
                    "id": .int(issued.user.id),
                    "expires_in": .int(remaining),
                    "app_id": .int(issued.appID),
                    "expiresInMillis": .int(remaining * 1000),
                    "appId": .int(issued.appID),
                ],
                contentType: Reply.kakaoJSON
            )
        }
        let answeredID = answerAnotherUser ? issued.user.id &+ 1 : issued.user.id
        let secure = request.uri.queryParameters.get("secure_resource") == "true"
        return Reply.json(200, issued.user.userMe(id: answeredID, secureResource: secure), contentType: Reply.kakaoJSON)
    }

    /// `POST /v1/user/unlink` with the admin key: `Authorization: KakaoAK <admin key>` and the form
    /// `target_id_type=user_id&target_id=<id>`; `{"id"}`, or -101 for a user not linked to the app. (The user-token form,
    /// `Authorization: Bearer`, is not what the service sends and is refused here.)
    private func answerUnlink(_ request: Request) async -> Response {
        let (fault, adminKey) = state.withLock { state in
            state.unlinkCalls += 1
            return (state.unlinkFault.take(), state.adminKey)
        }
        switch fault {
        case .delay(let duration): try? await Task.sleep(for: duration)
        case .errorCode(let code, let status): return Self.error(status, code: code, KakaoFault.message(for: code))
        case .httpStatus(let status, let body): return Reply.text(status, body, contentType: Reply.kakaoJSON)
        case .rawBody(let body, let contentType): return Reply.text(200, body, contentType: contentType)
        case .mismatchedUserMe, nil: break
        }
        let values = request.headers[values: .authorization]
        guard let adminKey, values.count == 1, values[0] == "KakaoAK " + adminKey else {
            return Self.error(401, code: -401, "wrong appKey(\(values.first?.prefix(8) ?? "")) format")
        }
        guard request.mediaType == "application/x-www-form-urlencoded", let body = try? await request.bodyBytes() else {
            return Self.error(400, code: -2, "the body must be a form")
        }
        let fields = FormFields.parse(String(decoding: body, as: UTF8.self))
        guard fields["target_id_type"] == "user_id", let text = fields["target_id"], let id = Int64(text), id > 0 else {
            return Self.error(400, code: -2, "target_id_type=user_id and a numeric target_id are required")
        }
        let wasLinked = state.withLock { state in
            guard state.linked.remove(id) != nil else { return false }
            state.tokens = state.tokens.filter { $0.value.user.id != id }
            state.unlinkedByAdmin.append(id)
            return true
        }
        guard wasLinked else { return Self.error(400, code: -101, "not registered user") }
        return Reply.json(200, ["id": .int(id)], contentType: Reply.kakaoJSON)
    }

    private func answerJWKS() -> Response {
        let (failing, maxAge) = state.withLock { state in
            state.jwksCalls += 1
            return (state.jwksFailing, state.jwksMaxAge)
        }
        guard !failing, let jwks = try? oidcKeys.jwksJSON() else {
            return Self.error(503, code: -1, "internal error")
        }
        var response = Reply.json(200, jwks, contentType: Reply.kakaoJSON)
        if let maxAge { response.headers[.cacheControl] = "max-age=\(maxAge)" }
        return response
    }


    private static func error(_ status: Int, code: Int, _ message: String) -> Response {
        Reply.json(status, ["msg": .string(message), "code": .int(Int64(code))], contentType: Reply.kakaoJSON)
    }
}
