import BridgeFeatures
import BridgeJSON
import BridgeSupport
import Hummingbird
import NIOCore
import Upstreams

/// `POST /v1/users/delete` (docs/api.md#post-v1usersdelete): the backend deletes an account, authenticated by the hook
/// secret as the hook is, and switched off (404) with it. Body `{"uid", "provider_token"?}`. The deletion is recorded
/// before the answer; its steps' first run is awaited for `kakao.unlink_deadline_ms`, then the record answers: 200 when
/// no step is pending, 202 while the queue still has one to retry.
struct UserDeletionController {
    let deletion: Live<AccountDeletion>
    let hookLimit: HookRateLimit

    static let route = Route.deleteUser

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: delete)
    }

    @Sendable func delete(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let deletion = try deletion.get()
        guard !deletion.secrets.isEmpty else { throw Problem.notFound() }
        try hookLimit.admit(request, to: deletion)
        let json = try await RequestBody.jsonObject(request, what: "a JSON object with `uid`")
        guard let uid = json["uid"]?.stringValue, !uid.isEmpty, uid.utf16.count <= 128 else {
            throw Problem.invalidRequest("`uid` must be a non-empty string of at most 128 characters.")
        }
        return try await Self.run(deletion, uid: uid, providerToken: try Self.providerToken(json), context: context)
    }

    /// `provider_token`: absent, or a non-empty token (never logged, never stored).
    static func providerToken(_ json: JSONValue) throws(Problem) -> String? {
        guard let value = json["provider_token"], value != .null else { return nil }
        guard let token = value.stringValue, !token.isEmpty else {
            throw Problem.invalidRequest("`provider_token` must be a non-empty string when given.")
        }
        try BearerToken.validate(token)
        return token
    }

    /// Records the deletion (or reads its record), runs its steps' first attempt within the deadline, and answers from
    /// the record.
    static func run(_ deletion: AccountDeletion, uid: String, providerToken: String?, context: BridgeRequestContext) async throws -> Response {
        let accepted = ContinuousClock.now
        let (first, queued) = try await deletion.delete(uid: uid, providerToken: providerToken, context: context.callContext)
        guard let queued else { return Self.answer(first) }
        let callContext = context.callContext
        let work = Task { await deletion.work(queued, context: callContext) }
        _ = await work.value(orNilAfter: deletion.deadline - (ContinuousClock.now - accepted))
        let recorded = try? await deletion.recorded(uid)
        let answer = (recorded ?? nil) ?? first
        deletion.meters.count(answer.provider, answer.isPending ? .pending : .done)
        return Self.answer(answer)
    }

    static func answer(_ answer: AccountDeletion.Answer) -> Response {
        Response(
            status: answer.isPending ? .accepted : .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: answer.jsonBytes))
        )
    }
}
