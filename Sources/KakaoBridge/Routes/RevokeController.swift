import BridgeFeatures
import BridgeJSON
import BridgeSupport
import Hummingbird
import Logging
import NIOCore
import Upstreams

/// `POST /v1/users/revoke` (docs/api.md#post-v1usersrevoke): "log out everywhere" for backends without an Admin SDK.
/// Authenticated by the hook secret, as the hook, and switched off (404) with it. Sets the user's `validSince` to now,
/// so every refresh token issued before stops working and `hook.check_revoked` refuses the older ID tokens.
struct RevokeController {
    let revocation: Live<UserRevocation>
    let hookLimit: HookRateLimit

    static let route = Route.revoke

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: revoke)
    }

    struct Reply: JSONWritable {
        var uid: String
        var validSince: Int64

        func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("uid")
            writer.string(uid)
            writer.key("valid_since")
            writer.int(validSince)
            writer.closeObject()
        }
    }

    @Sendable func revoke(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let revocation = try revocation.get()
        try hookLimit.admit(request, to: revocation)
        let uid = try await Self.readUID(request)
        let now = try await revocation.revoke(uid: uid, context: context.callContext)
        context.logger.info("revoked the user's sessions", metadata: ["uid": "\(uid)", "request_id": "\(context.requestID)"])
        return JSONResponse.ok(json: Reply(uid: uid, validSince: now))
    }

    /// `{"uid": "…"}`: a non-empty string of at most 128 characters (Firebase's limit), at most 64 KiB of body.
    static func readUID(_ request: Request) async throws(Problem) -> String {
        let json = try await RequestBody.jsonObject(request, what: "a JSON object with `uid`")
        guard let uid = json["uid"]?.stringValue, !uid.isEmpty, uid.utf16.count <= 128 else {
            throw Problem.invalidRequest("`uid` must be a non-empty string of at most 128 characters.")
        }
        return uid
    }
}
