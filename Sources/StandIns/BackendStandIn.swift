import BridgeJSON
import Hummingbird
import Logging
import Synchronization

/// The app's own backend (step 6): takes `{"kakao_token", "token"}` and, like a real backend that cannot
/// verify Firebase tokens itself, asks the bridge's hook who the user is.
public final class BackendStandIn: Sendable {
    public static let path = "/login-complete"
    /// Where the bridge tells the backend about unlinks (`backend.unlink_url`).
    public static let unlinkPath = "/kakao-unlinked"
    /// Where the bridge tells the backend about Kakao's security events (`backend.events_url`).
    public static let eventsPath = "/kakao-events"

    /// What the bridge sent to the backend.
    public struct LoginRequest: Sendable, Equatable {
        /// The provider's token: `kakao_token`, or `provider_token` for Naver and LINE.
        public var kakaoToken: String
        public var token: String
        /// `provider` of a Naver or LINE login's body; nil for Kakao's `{"kakao_token", "token"}`.
        public var provider: String? = nil
    }

    private struct Hook {
        var url: String
        var secret: String
    }

    private struct State {
        var hook: Hook?
        var fault = FaultSlot<StandInFault>()
        var calls = 0
        var lastHookStatus: Int?
        var lastHookAnswer: JSONValue?
        var lastRequest: LoginRequest?
        var unlinkSecret: String?
        var unlinkFault = FaultSlot<StandInFault>()
        var unlinkNotices: [JSONValue] = []
        var eventsSecret: String?
        var eventsFault = FaultSlot<StandInFault>()
        var eventNotices: [JSONValue] = []
    }

    private let state = Mutex(State())
    private let hookTimeout: Duration

    public init(hookTimeout: Duration = .seconds(10)) {
        self.hookTimeout = hookTimeout
    }

    /// The URL to configure as `backend.login_complete_url`.
    public static func url(on server: StandInServer) -> String {
        server.baseURL + path
    }

    /// After this, every login is confirmed with `POST url` and `Authorization: Bearer <secret>`.
    public func configureHook(url: String, secret: String) {
        state.withLock { $0.hook = Hook(url: url, secret: secret) }
    }

    /// The unlink URL then requires `Authorization: Bearer <secret>` (the bridge sends `hook.secret`).
    public func configureUnlink(secret: String) {
        state.withLock { $0.unlinkSecret = secret }
    }

    /// The events URL then requires `Authorization: Bearer <secret>` (the bridge sends `hook.secret`).
    public func configureEvents(secret: String) {
        state.withLock { $0.eventsSecret = secret }
    }

    /// Faults of the events URL only.
    public func setEventsFault(_ fault: StandInFault?, times: Int? = nil) {
        state.withLock { $0.eventsFault.set(fault, times: times) }
    }

    /// Every security event notice accepted, as sent: `{"uid", "kakao_id", "event", "jti"}`.
    public var eventNotices: [JSONValue] { state.withLock { $0.eventNotices } }

    public static func eventsURL(on server: StandInServer) -> String {
        server.baseURL + eventsPath
    }

    /// Faults of the unlink URL only.
    public func setUnlinkFault(_ fault: StandInFault?, times: Int? = nil) {
        state.withLock { $0.unlinkFault.set(fault, times: times) }
    }

    /// Every unlink notice accepted, as sent: `{"uid", "kakao_id", "referrer_type"}`.
    public var unlinkNotices: [JSONValue] { state.withLock { $0.unlinkNotices } }

    public static func unlinkURL(on server: StandInServer) -> String {
        server.baseURL + unlinkPath
    }

    public func removeHook() {
        state.withLock { $0.hook = nil }
    }

    public func setFault(_ fault: StandInFault?, times: Int? = nil) {
        state.withLock { $0.fault.set(fault, times: times) }
    }

    public var calls: Int { state.withLock { $0.calls } }
    /// The hook's status on the last login, nil when there was no hook call or it failed to connect.
    public var lastHookStatus: Int? { state.withLock { $0.lastHookStatus } }
    /// The hook's parsed answer on the last login.
    public var lastHookAnswer: JSONValue? { state.withLock { $0.lastHookAnswer } }
    public var lastRequest: LoginRequest? { state.withLock { $0.lastRequest } }

    public func resetCounters() {
        state.withLock {
            $0.calls = 0
            $0.lastHookStatus = nil
            $0.lastHookAnswer = nil
            $0.lastRequest = nil
            $0.unlinkNotices = []
            $0.eventNotices = []
        }
    }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.post(RouterPath(Self.path)) { request, _ in
            try await self.answer(request)
        }
        router.post(RouterPath(Self.eventsPath)) { request, _ in
            try await self.securityEvent(request)
        }
        router.post(RouterPath(Self.unlinkPath)) { request, _ in
            try await self.unlinked(request)
        }
        return try await StandInServer.start(name: "backend", router: router, logger: logger)
    }

    private func answer(_ request: Request) async throws -> Response {
        let (fault, hook) = state.withLock { state in
            state.calls += 1
            return (state.fault.take(), state.hook)
        }
        if let replacement = try await fault?.apply() {
            return replacement
        }

        let bytes = try await request.bodyBytes()
        // Exactly one of the two shapes (docs/api.md#the-six-step-flow): Kakao's two keys, or a provider's three.
        guard request.mediaType == "application/json",
            let body = JSONValue.parse(bytes)?.objectValue,
            let token = body["token"]?.stringValue, !token.isEmpty
        else {
            return Self.meta(400)
        }
        let provider: String?
        let providerToken: String
        if Set(body.keys) == ["kakao_token", "token"], let kakaoToken = body["kakao_token"]?.stringValue, !kakaoToken.isEmpty {
            (provider, providerToken) = (nil, kakaoToken)
        } else if Set(body.keys) == ["provider", "provider_token", "token"],
                  let named = body["provider"]?.stringValue, ["naver", "line"].contains(named),
                  let given = body["provider_token"]?.stringValue, !given.isEmpty {
            (provider, providerToken) = (named, given)
        } else {
            return Self.meta(400)
        }
        state.withLock { $0.lastRequest = LoginRequest(kakaoToken: providerToken, token: token, provider: provider) }
        guard let hook else {
            return Self.meta(200)
        }

        let answer: HookClient.Answer
        do {
            answer = try await HookClient.post(
                url: hook.url,
                headers: [("Authorization", "Bearer \(hook.secret)"), ("Content-Type", "application/json")],
                body: bytes,
                timeout: hookTimeout
            )
        } catch {
            state.withLock { $0.lastHookStatus = nil }
            return Self.meta(502)
        }
        let parsed = JSONValue.parse(answer.body)
        state.withLock {
            $0.lastHookStatus = answer.status
            $0.lastHookAnswer = parsed
        }
        guard answer.status == 200 else {
            return Self.meta(answer.status)
        }
        let user: JSONValue
        if let provider {
            guard let uid = parsed?["uid"]?.stringValue, parsed?["provider"]?.stringValue == provider,
                  let id = parsed?[provider]?["id"]?.stringValue else {
                return Self.meta(502)
            }
            user = .object(["uid": .string(uid), "provider": .string(provider), "provider_id": .string(id)])
        } else {
            guard let uid = parsed?["uid"]?.stringValue, let kakaoID = parsed?["kakao"]?["id"]?.intValue else {
                return Self.meta(502)
            }
            user = .object(["uid": .string(uid), "kakao_id": .int(kakaoID)])
        }
        return Reply.json(200, ["meta": .object(["code": .int(200)]), "user": user], contentType: "application/json")
    }

    /// A strict receiver: the bearer secret, JSON, exactly `uid` (string or null), `kakao_id` (integer) and
    /// `referrer_type` (or the provider-naming shapes of an unlink and a deletion), or 400/401 as a careful backend would
    /// answer.
    private func unlinked(_ request: Request) async throws -> Response {
        let (fault, secret) = state.withLock { ($0.unlinkFault.take(), $0.unlinkSecret) }
        if let replacement = try await fault?.apply() { return replacement }
        if let secret, request.headers[.authorization] != "Bearer \(secret)" { return Self.meta(401) }
        let bytes = try await request.bodyBytes()
        // Kakao's shape, or another provider's (docs/api.md#navers-unlink-callback): `event`, `uid`, `provider`, `provider_id`.
        guard request.mediaType == "application/json", let body = JSONValue.parse(bytes)?.objectValue,
              body["uid"]?.stringValue != nil || body["uid"] == .null,
              (Set(body.keys) == ["uid", "kakao_id", "referrer_type"] && body["kakao_id"]?.intValue != nil)
                || (Set(body.keys) == ["event", "uid", "provider", "provider_id"] && body["event"]?.stringValue == "unlinked"
                    && body["provider"]?.stringValue == "naver" && !(body["provider_id"]?.stringValue ?? "").isEmpty)
                // An account deleted through the service (docs/api.md#deleting-an-account): every provider, a uid always.
                || (Set(body.keys) == ["event", "uid", "provider", "provider_id"] && body["event"]?.stringValue == "deleted"
                    && body["uid"]?.stringValue != nil && ["kakao", "naver", "line"].contains(body["provider"]?.stringValue ?? "")
                    && !(body["provider_id"]?.stringValue ?? "").isEmpty)
        else {
            return Self.meta(400)
        }
        state.withLock { $0.unlinkNotices.append(.object(body)) }
        return Self.meta(200)
    }

    /// A strict receiver: the bearer secret, JSON, exactly `uid` (string or null), `kakao_id` (integer), `event` and `jti`
    /// (strings), or 400/401 as a careful backend would answer.
    private func securityEvent(_ request: Request) async throws -> Response {
        let (fault, secret) = state.withLock { ($0.eventsFault.take(), $0.eventsSecret) }
        if let replacement = try await fault?.apply() { return replacement }
        if let secret, request.headers[.authorization] != "Bearer \(secret)" { return Self.meta(401) }
        let bytes = try await request.bodyBytes()
        guard request.mediaType == "application/json", let body = JSONValue.parse(bytes)?.objectValue,
              Set(body.keys) == ["uid", "kakao_id", "event", "jti"], body["kakao_id"]?.intValue != nil,
              body["uid"]?.stringValue != nil || body["uid"] == .null,
              body["event"]?.stringValue?.hasPrefix("https://") == true, body["jti"]?.stringValue?.isEmpty == false
        else {
            return Self.meta(400)
        }
        state.withLock { $0.eventNotices.append(.object(body)) }
        return Self.meta(200)
    }

    private static func meta(_ code: Int) -> Response {
        Reply.json(code, ["meta": .object(["code": .int(Int64(code))])], contentType: "application/json")
    }
}
