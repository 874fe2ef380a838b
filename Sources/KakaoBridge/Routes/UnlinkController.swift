import BridgeFeatures
import BridgeSupport
import Hummingbird
import Logging
import NIOCore
import OpenSSLCrypto
import Upstreams

/// `GET` and `POST /v1/kakao/unlink` (docs/api.md#kakaos-unlink-webhook): Kakao's unlink webhook. Kakao sends the same
/// parameters in the query (GET) or as a form body (POST), with `Authorization: KakaoAK <admin key>`, and counts anything
/// but a 200 within 3 s as a failure.
///
/// Registered explicitly, so that `unlink` is never taken for the legacy route's token; 404 while `kakao.admin_key` is
/// empty.
struct UnlinkController {
    let unlink: Live<KakaoUnlink>

    static let route = Route.kakaoUnlink

    func register(on router: Router<BridgeRequestContext>) {
        router.add(Self.route, use: unlink)
    }

    /// Authenticated and well formed, the event is recorded and acknowledged with 200 whatever its steps do: those that
    /// have not succeeded within `kakao.unlink_deadline_ms` go on, and are retried from the store until they succeed.
    @Sendable func unlink(_ request: Request, context: BridgeRequestContext) async throws -> Response {
        let unlink = try unlink.get()
        try Self.authorize(request, adminKey: unlink.adminKey)
        let event = try await Self.event(from: request, appID: unlink.appID)
        // One deadline for recording the event and its first steps together: Kakao counts the whole answer.
        let accepted = ContinuousClock.now
        let queued = try await unlink.accept(event)

        let callContext = context.callContext
        let work = Task { await unlink.work(queued, context: callContext) }
        let outcome = await work.value(orNilAfter: unlink.deadline - (ContinuousClock.now - accepted)) ?? .pending
        unlink.meters.count(outcome)
        return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "OK")))
    }

    /// `Authorization: KakaoAK <admin key>`, the key compared in constant time.
    static func authorize(_ request: Request, adminKey: [UInt8]) throws(Problem) {
        guard AuthorizationHeader.carries(request, scheme: .kakaoAK, secret: adminKey) else {
            throw Problem.unauthorized("Missing or wrong Kakao admin key (`Authorization: KakaoAK <admin key>`).")
        }
    }

    /// `app_id` must be ours (401, as a wrong key: only our app's webhook may act), `user_id` a positive Kakao id (400).
    static func event(from request: Request, appID: Int64) async throws(Problem) -> KakaoUnlink.Event {
        var fields = FormCodec.parse(Substring(request.uri.query ?? ""))
        if request.method == .post {
            let body = try await Self.formBody(request)
            if !body.isEmpty { fields = body }
        }
        guard let app = fields["app_id"], Int64(app) == appID else {
            throw Problem.unauthorized("The webhook's app_id is not this service's Kakao app.")
        }
        guard let text = fields["user_id"], let kakaoID = Int64(text), kakaoID > 0 else {
            throw Problem.invalidRequest("`user_id` must be a positive Kakao user id.")
        }
        return KakaoUnlink.Event(kakaoID: kakaoID, referrerType: fields["referrer_type"])
    }

    private static func formBody(_ request: Request) async throws(Problem) -> [String: String] {
        let buffer = try await RequestBody.collect(request)
        return FormCodec.parse(Substring(String(decoding: buffer.readableBytesView, as: UTF8.self)))
    }
}
