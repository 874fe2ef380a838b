import BridgeJSON
import BridgeSupport
import CurlHTTP

/// Verifies a Naver access token (docs/api.md#naver-access-tokens). The real one asks Naver; tests pass fakes.
public protocol NaverVerifying: Sendable {
    func verify(accessToken: String, context: CallContext) async throws(Problem) -> NaverUser
}

/// Naver's profile API (https://openapi.naver.com): `GET /v1/nid/me` (docs/api.md#naver-access-tokens).
///
/// Naver has no endpoint that says which app a token was issued to; its ids are per application instead, so a token of
/// another app names a user who can never reach an account of ours (and a Naver login never links by email).
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct NaverClient: NaverVerifying {
    private let upstream: Upstream
    private let baseURL: String

    package init(upstream: Upstream, baseURL: String) {
        self.upstream = upstream
        self.baseURL = baseURL.withoutTrailingSlash
    }

    // MARK: Entry point

    package func verify(accessToken: String, context: CallContext) async throws(Problem) -> NaverUser {
        try Self.user(from: try await upstream.call(request(accessToken), Self.failures, context: context))
    }

    // MARK: Requests

    package static let profilePath = "/v1/nid/me"

    private func request(_ token: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: baseURL + Self.profilePath, headers: [("Authorization", "Bearer " + token), ("Accept", "application/json")])
    }

    // MARK: Answers

    /// Success is HTTP 200 *and* `resultcode` "00" with a non-empty `response.id`: Naver sometimes sends its 024 with
    /// HTTP 200 (docs/errors.md#from-naver).
    package static func user(from response: HTTPResponse) throws(Problem) -> NaverUser {
        guard response.status == 200 else { throw failures.unavailable("Naver answered HTTP \(response.status).") }
        guard let me = try? NaverMe(jsonBytes: response.body) else { throw failures.unreadable }
        if let refusal = refusal(resultcode: me.resultcode) { throw refusal }
        guard let profile = me.response, !profile.id.isEmpty else {
            throw Problem.invalidNaverToken("Naver's answer names no user.")
        }
        return profile
    }

    /// `nil` for "00"; a refusal for every other code, which the detail names (Naver's codes are not secrets).
    private static func refusal(resultcode: String) -> Problem? {
        switch resultcode {
        case "00": nil
        case "024", "028": Problem.invalidNaverToken("Naver does not accept the token (resultcode \(resultcode)).")
        default: Problem.naverUnavailable("Naver answered with resultcode \(Self.printable(resultcode)).")
        }
    }

    /// A code as Naver sends it is a few digits; anything else is cut short rather than echoed whole.
    private static func printable(_ code: String) -> String {
        let kept = code.prefix(8).filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
        return kept.isEmpty ? "(none)" : String(kept)
    }

    // MARK: Failure table (docs/errors.md#from-naver)

    /// A GET, idempotent: outages and connection errors are retried as Kakao's are; a verdict on the token never is.
    package static let failures = FailureMap("Naver", unavailable: Problem.naverUnavailable, retry: .kakao) { response in
        if let code = (try? NaverMe(jsonBytes: response.body))?.resultcode, code == "024" || code == "028" {
            return .init(.invalidNaverToken("Naver does not accept the token (resultcode \(code))."))
        }
        switch response.status {
        case 401: return .init(.invalidNaverToken("Naver does not accept the token (HTTP 401)."))
        case 403: return .init(.naverRejected("Naver answered 403: the Naver app has not enabled the profile API (회원프로필 조회)."))
        case 429: return .init(.naverQuotaExceeded())
        default:
            return .init(.naverUnavailable("Naver answered HTTP \(response.status)."), retryable: response.status >= 500)
        }
    }
}

/// No Naver: what a world without Naver is given (the feature is off, so nothing calls it).
public struct NaverOff: NaverVerifying {
    public init() {}

    public func verify(accessToken: String, context: CallContext) async throws(Problem) -> NaverUser {
        throw Problem.naverUnavailable("Naver is not configured.")
    }
}
