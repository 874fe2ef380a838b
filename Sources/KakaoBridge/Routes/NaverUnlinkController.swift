import BridgeFeatures
import BridgeSupport
import Hummingbird
import NIOCore
import Upstreams

/// `POST /v1/naver/unlink` (docs/api.md#navers-unlink-callback): Naver's "연결 끊기 알림", a form body signed and
/// encrypted with a key from the client secret. Recorded durably, then answered 204 at once (Naver wants no body and
/// never resends); the steps run on and are retried from the queue. 404 while `naver.client_secret` is empty.
struct NaverUnlinkController {
    let unlink: Live<NaverUnlink>

    static let route = Route.naverUnlink

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: unlink)
    }

    @Sendable func unlink(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let unlink = try unlink.get()
        let body = try await RequestBody.collect(request)
        let queued = try await unlink.accept(form: Array(body.readableBytesView), context: context.callContext)
        let callContext = context.callContext
        // Not awaited: the answer says the event is kept, and the queue retries what this first run does not finish.
        Task { unlink.meters.count(await unlink.work(queued, context: callContext)) }
        return Response(status: .noContent)
    }
}
