import BridgeFeatures
import BridgeJSON
import BridgeSupport
import Hummingbird
import NIOCore
import Upstreams

/// `POST /v1/me/delete` (docs/api.md#post-v1medelete): the app deletes its signed-in person's account with
/// `Authorization: Bearer <Firebase ID token>` from a sign-in at most `delete.max_auth_age_seconds` old; body optional
/// `{"provider_token"}`. Off (404) unless `delete.self_service` is on. Answered as `POST /v1/users/delete` is.
struct SelfDeletionController {
    let deletion: Live<AccountDeletion>

    static let route = Route.deleteMe

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: delete)
    }

    @Sendable func delete(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let deletion = try deletion.get()
        guard deletion.selfServiceEnabled else { throw Problem.notFound() }
        let idToken = try BearerToken.from(request)
        let body = try await RequestBody.collect(request)
        var providerToken: String?
        if body.readableBytes > 0 {
            guard let json = JSONValue.parse(body.readableBytesView), case .object = json else {
                throw Problem.invalidRequest("The body must be empty or a JSON object with `provider_token`.")
            }
            providerToken = try UserDeletionController.providerToken(json)
        }
        let uid = try await deletion.selfServiceUID(idToken: idToken, context: context.callContext)
        return try await UserDeletionController.run(deletion, uid: uid, providerToken: providerToken, context: context)
    }
}
