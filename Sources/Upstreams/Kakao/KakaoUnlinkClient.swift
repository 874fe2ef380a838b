import BridgeJSON
import BridgeSupport
import CurlHTTP

/// Kakao's unlink API with the admin key (docs/api.md#deleting-an-account): `POST /v1/user/unlink`,
/// `Authorization: KakaoAK <admin key>`, form `target_id_type=user_id&target_id=<id>`. No user token is needed, so the
/// queue can retry it. Kakao sends no unlink webhook for an unlink the app asked for.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct KakaoUnlinkClient: ProviderUnlinking {
    private let upstream: Upstream
    private let baseURL: String
    /// `kakao.admin_key`.
    private let adminKey: String

    package init(upstream: Upstream, baseURL: String, adminKey: String) {
        self.upstream = upstream
        self.baseURL = baseURL.withoutTrailingSlash
        self.adminKey = adminKey
    }

    // MARK: Entry point

    package func unlink(_ subject: UnlinkSubject, context: CallContext) async throws(Problem) {
        guard case .kakaoUserID(let id) = subject else { throw Problem.invalidRequest("Kakao unlinks by user id.") }
        let response = try await upstream.call(request(id), Self.failures, context: context)
        try Self.judge(response)
    }

    // MARK: Requests

    package static let unlinkPath = "/v1/user/unlink"

    private func request(_ id: Int64) -> HTTPRequest {
        HTTPRequest(
            method: .post, url: baseURL + Self.unlinkPath,
            headers: [
                ("Authorization", "KakaoAK " + adminKey), ("Content-Type", "application/x-www-form-urlencoded"),
                ("Accept", "application/json"),
            ],
            body: Array(FormCodec.encode([("target_id_type", "user_id"), ("target_id", String(id))]).utf8)
        )
    }

    // MARK: Answers

    /// 2xx is unlinked; Kakao's -101 (the user is not linked to the app) is handed through by the failure table and
    /// counts as done too: a repeated unlink changes nothing.
    private static func judge(_ response: HTTPResponse) throws(Problem) {
        if (200..<300).contains(response.status) { return }
        if (try? KakaoErrorReply(jsonBytes: response.body))?.code == Self.notLinked { return }
        throw Problem.kakaoUnavailable("Kakao answered HTTP \(response.status) to the unlink.")
    }

    static let notLinked = -101

    // MARK: Failure table (docs/errors.md#from-kakao)

    /// Unlinking twice is harmless, so outages and connection errors are retried as Kakao's GETs are.
    package static let failures = FailureMap("Kakao", unavailable: Problem.kakaoUnavailable, retry: .kakao) { response in
        switch (try? KakaoErrorReply(jsonBytes: response.body))?.code {
        case .some(KakaoUnlinkClient.notLinked):
            nil
        case .some(let code) where code == -401 || code == -2:
            .init(.kakaoUnavailable("Kakao refused the admin key (code \(code))."))
        case .some(-10):
            .init(.kakaoQuotaExceeded())
        case .some(let code) where code == -1 || code == -7:
            .init(.kakaoUnavailable("Kakao reports an outage (code \(code))."), retryable: true)
        case .some(let other):
            .init(.kakaoUnavailable("Kakao answered with error code \(other)."))
        case .none:
            .init(.kakaoUnavailable("Kakao answered HTTP \(response.status) without an error code."), retryable: response.status >= 500)
        }
    }
}
