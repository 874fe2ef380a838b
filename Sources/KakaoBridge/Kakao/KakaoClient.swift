import CurlHTTP
import Foundation

/// Kakao's REST API (https://kapi.kakao.com): token info and the user's profile, with the contract's error mapping.
///
/// Layout shared by every upstream client: configuration, public entry point, requests, answer decoding, error mapping.
public struct KakaoClient: KakaoVerifying {
    private let upstream: Upstream
    private let baseURL: String
    private let appID: Int64
    private let retry: RetryPolicy

    init(upstream: Upstream, baseURL: String, appID: Int64, retry: RetryPolicy = .kakao) {
        self.upstream = upstream
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.appID = appID
        self.retry = retry
    }

    public func verify(accessToken: String, context: CallContext) async throws(Problem) -> KakaoUser {
        try await verifyReportingLifetime(accessToken: accessToken, context: context).user
    }

    /// Both calls run at once: their latencies overlap instead of adding up.
    public func verifyReportingLifetime(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedKakaoToken {
        let deadline = upstream.deadline()
        // Sent together and awaited once: no child task per call. Retries, the rare case, follow one call at a time.
        let first = await upstream.sendAll(
            [request(Self.tokenInfoPath, accessToken), request(Self.userMePath, accessToken)], deadline: deadline, context: context
        )
        let infoReply = { () async throws(Problem) -> HTTPResponse in
            try await fetch(Self.tokenInfoPath, accessToken, deadline, context, first: classify(first[0]))
        }
        let meReply = { () async throws(Problem) -> HTTPResponse in
            try await fetch(Self.userMePath, accessToken, deadline, context, first: classify(first[1]))
        }
        let info: KakaoTokenInfo
        let me: KakaoMe
        do {
            // Token info decides first: a dead token is `invalid_kakao_token` whatever the profile call said.
            info = try decode(KakaoTokenInfo.self, try await infoReply())
            if info.app_id != appID { throw Problem.kakaoAppMismatch() }
            if let expiresIn = info.expires_in, expiresIn <= 0 {
                throw Problem.invalidKakaoToken("The Kakao token has expired.")
            }
            me = try decode(KakaoMe.self, try await meReply())
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem.kakaoUnavailable("Kakao's answer could not be read.")
        }
        // Kakao ids are positive; anything else is a broken answer, not a verdict on the token.
        guard info.id > 0, me.id > 0 else { throw Problem.kakaoUnavailable("Kakao's answer carried an impossible user id.") }
        guard me.id == info.id else {
            throw Problem.invalidKakaoToken("Kakao's token info and profile name different users.")
        }
        return VerifiedKakaoToken(user: me.user, expiresIn: info.expires_in)
    }

    // MARK: Requests

    static let tokenInfoPath = "/v1/user/access_token_info"
    static let userMePath = "/v2/user/me"

    private func request(_ path: String, _ token: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: baseURL + path, headers: [("Authorization", "Bearer " + token), ("Accept", "application/json")])
    }

    /// The answer to `path`, starting from the verdict on the first attempt and retrying while that is allowed.
    private func fetch(
        _ path: String, _ token: String, _ deadline: ContinuousClock.Instant, _ context: CallContext, first: Verdict
    ) async throws(Problem) -> HTTPResponse {
        var verdict = first
        var attempt = 0
        while true {
            switch verdict {
            case .answer(let response):
                return response
            case .fail(let problem, let retryable):
                guard retryable, attempt < retry.maxRetries,
                      await retry.pause(before: attempt + 1, deadline: deadline) else { throw problem }
                attempt += 1
            }
            let outcome: Result<HTTPResponse, Upstream.Failure>
            do {
                outcome = .success(try await upstream.send(request(path, token), deadline: deadline, context: context))
            } catch {
                outcome = .failure(error)
            }
            verdict = classify(outcome)
        }
    }

    // MARK: Error mapping (contract §3)

    private enum Verdict {
        case answer(HTTPResponse)
        case fail(Problem, retryable: Bool)
    }

    private func classify(_ outcome: Result<HTTPResponse, Upstream.Failure>) -> Verdict {
        let response: HTTPResponse
        switch outcome {
        case .failure(.timeout): return .fail(.upstreamTimeout("Kakao"), retryable: false)
        case .failure(.overloaded): return .fail(.kakaoUnavailable("Too many calls to Kakao are in flight."), retryable: false)
        case .failure(.unreachable(let why)): return .fail(.kakaoUnavailable("Kakao is unreachable: \(why)."), retryable: true)
        case .success(let answer): response = answer
        }
        if (200..<300).contains(response.status) { return .answer(response) }
        let code: Int? = (try? JSONCoding.decode(KakaoErrorReply.self, from: response.body))?.code
        switch code {
        case .some(-401), .some(-2):
            return .fail(.invalidKakaoToken("Kakao does not accept the token (code \(code ?? 0))."), retryable: false)
        case .some(-10):
            return .fail(.kakaoQuotaExceeded(), retryable: false)
        case .some(-1), .some(-7):
            return .fail(.kakaoUnavailable("Kakao reports an outage (code \(code ?? 0))."), retryable: true)
        case .some(-9798):
            return .fail(.kakaoUnavailable("Kakao is under maintenance (code -9798)."), retryable: false)
        case .some(let other):
            return .fail(.kakaoUnavailable("Kakao answered with error code \(other)."), retryable: false)
        case .none:
            return .fail(
                .kakaoUnavailable("Kakao answered HTTP \(response.status) without an error code."),
                retryable: response.status >= 500
            )
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) throws(Problem) -> T {
        do {
            return try JSONCoding.decode(type, from: response.body)
        } catch {
            throw Problem.kakaoUnavailable("Kakao's answer could not be read.")
        }
    }
}
