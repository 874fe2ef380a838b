import BridgeJSON
import BridgeSupport
import CurlHTTP

/// A notice the service sends the backend on its own: an unlink (`backend.unlink_url`,
/// docs/api.md#kakaos-unlink-webhook, step 3) or a Kakao security event (`backend.events_url`,
/// docs/api.md#kakaos-security-events), as JSON with the hook secret as bearer, so the backend can tell the call is ours.
/// One client per URL; the notice's shape says which.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct BackendNoticeClient: UnlinkNotifying, SecurityEventNotifying {
    private let upstream: Upstream
    private let url: String
    private let secret: String

    package init(upstream: Upstream, url: String, secret: String) {
        self.upstream = upstream
        self.url = url
        self.secret = secret
    }

    // MARK: Entry point

    /// `{"uid", "kakao_id", "referrer_type"}`. Retried on a connection failure: the same notice twice is harmless (the
    /// webhook itself may come twice).
    package func notify(_ notice: UnlinkNotice, context: CallContext) async throws(Problem) {
        try await post(UnlinkBody(notice: notice), context: context)
    }

    /// `{"uid", "kakao_id", "event", "jti"}`; the backend can tell a repeated one by its `jti`.
    package func notify(_ notice: SecurityEventNotice, context: CallContext) async throws(Problem) {
        try await post(EventBody(notice: notice), context: context)
    }

    private func post(_ body: some JSONWritable & Sendable, context: CallContext) async throws(Problem) {
        _ = try await upstream.post(url, body: body, headers: [("Authorization", "Bearer \(secret)")], Self.failures, context: context)
    }

    // MARK: Requests

    package struct UnlinkBody: JSONWritable {
        package var notice: UnlinkNotice

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            // Another provider's person, or a deletion: the shape of docs/api.md#navers-unlink-callback, which names the
            // provider.
            if let provider = notice.provider, let providerID = notice.providerID {
                writer.key("event")
                writer.string(notice.event.rawValue)
                writer.key("uid")
                if let uid = notice.uid { writer.string(uid) } else { writer.null() }
                writer.key("provider")
                writer.string(provider.rawValue)
                writer.key("provider_id")
                writer.string(providerID)
                writer.closeObject()
                return
            }
            Self.writeUser(uid: notice.uid, kakaoID: notice.kakaoID, to: &writer)
            writer.key("referrer_type")
            if let referrer = notice.referrerType { writer.string(referrer) } else { writer.null() }
            writer.closeObject()
        }
    }

    package struct EventBody: JSONWritable {
        package var notice: SecurityEventNotice

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            UnlinkBody.writeUser(uid: notice.uid, kakaoID: notice.kakaoID, to: &writer)
            writer.key("event")
            writer.string(notice.event)
            writer.key("jti")
            writer.string(notice.jti)
            writer.closeObject()
        }
    }

    // MARK: Answers

    /// Only the status matters; the body is not read.

    // MARK: Failure table (docs/errors.md#from-the-backend)

    package static let failures = FailureMap("the backend", unavailable: Problem.backendUnavailable, retry: .once) { response in
        FailureMap.Refusal(Problem.backendNoticeRejected(status: response.status))
    }
}

extension BackendNoticeClient.UnlinkBody {
    /// `"uid"` (null when there is no Firebase user) and `"kakao_id"`, which every notice starts with.
    static func writeUser(uid: String?, kakaoID: Int64, to writer: inout JSONWriter) {
        writer.key("uid")
        if let uid { writer.string(uid) } else { writer.null() }
        writer.key("kakao_id")
        writer.int(kakaoID)
    }
}
