import BridgeJSON
import BridgeSupport
import CurlHTTP

/// The backend's events URL (docs/api.md#kakaos-security-events): `{"uid", "kakao_id", "event", "jti"}` with the hook
/// secret as bearer, so the backend can tell the call is ours.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct BackendEventsClient: SecurityEventNotifying {
    private let upstream: Upstream
    private let url: String
    private let secret: String

    package init(upstream: Upstream, url: String, secret: String) {
        self.upstream = upstream
        self.url = url
        self.secret = secret
    }

    // MARK: Entry point

    /// Retried on a connection failure: the same notice twice is harmless (Kakao may send a SET twice; `jti` tells).
    package func notify(_ notice: SecurityEventNotice, context: CallContext) async throws(Problem) {
        _ = try await upstream.post(
            url, body: NoticeBody(notice: notice), headers: [("Authorization", "Bearer \(secret)")], Self.failures,
            context: context
        )
    }

    // MARK: Requests

    package struct NoticeBody: JSONWritable {
        package var notice: SecurityEventNotice

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("uid")
            if let uid = notice.uid { writer.string(uid) } else { writer.null() }
            writer.key("kakao_id")
            writer.int(notice.kakaoID)
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
        FailureMap.Refusal(Problem.backendEventsRejected(status: response.status))
    }
}
