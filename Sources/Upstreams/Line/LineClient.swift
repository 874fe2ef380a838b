import BridgeJSON
import BridgeSupport
import CurlHTTP

/// Verifies a LINE access token (docs/api.md#line-access-tokens). The real one asks LINE; tests pass fakes.
public protocol LineVerifying: Sendable {
    /// The user, and verify's `expires_in`.
    func verify(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedProviderToken<LineUser>
}

/// LINE Login's API (https://api.line.me): `GET /oauth2/v2.1/verify` (whose channel the token is, and whether it is
/// live), then `GET /v2/profile` (docs/api.md#line-access-tokens). The profile has no channel, so verify decides first:
/// a token of another channel gets no second call.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct LineClient: LineVerifying {
    private let upstream: Upstream
    private let baseURL: String
    /// `line.channel_id`.
    private let channelID: String

    package init(upstream: Upstream, baseURL: String, channelID: String) {
        self.upstream = upstream
        self.baseURL = baseURL.withoutTrailingSlash
        self.channelID = channelID
    }

    // MARK: Entry point

    package func verify(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedProviderToken<LineUser> {
        let verified = try Upstream.decode(LineVerifyReply.self, try await upstream.call(verifyRequest(accessToken), Self.failures, context: context), Self.failures)
        try Self.check(verified, channelID: channelID)
        let profile = try Upstream.decode(LineProfileReply.self, try await upstream.call(profileRequest(accessToken), Self.failures, context: context), Self.failures)
        guard LineUser.isUserID(profile.user.id) else { throw Problem.lineUnavailable("LINE's profile carried an impossible user id.") }
        return VerifiedProviderToken(user: profile.user, expiresIn: verified.expiresIn)
    }

    // MARK: Requests

    package static let verifyPath = "/oauth2/v2.1/verify"
    package static let profilePath = "/v2/profile"

    /// The token goes in the query because LINE's API wants it there; the URL is never logged, spanned or counted by
    /// the service (`Upstream` records the upstream's name only).
    private func verifyRequest(_ token: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: baseURL + Self.verifyPath + "?access_token=" + FormCodec.escape(token), headers: [("Accept", "application/json")])
    }

    private func profileRequest(_ token: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: baseURL + Self.profilePath, headers: [("Authorization", "Bearer " + token), ("Accept", "application/json")])
    }

    // MARK: Answers

    /// `client_id` must be our channel (docs/api.md#line-access-tokens: LINE says so), `expires_in` positive.
    package static func check(_ verified: LineVerifyReply, channelID: String) throws(Problem) {
        guard verified.clientID == channelID else { throw Problem.lineChannelMismatch() }
        guard verified.expiresIn > 0 else { throw Problem.invalidLineToken("The LINE token has expired.") }
    }

    // MARK: Failure table (docs/errors.md#from-line)

    /// GETs, idempotent: outages and connection errors are retried as Kakao's are; a verdict on the token never is. A 400
    /// from verify (`invalid_request`, "access token expired") and a 401 from the profile are verdicts.
    package static let failures = FailureMap("LINE", unavailable: Problem.lineUnavailable, retry: .kakao) { response in
        switch response.status {
        case 400, 401:
            let error = (try? LineErrorReply(jsonBytes: response.body))?.error
            let named = error.map { code in code.prefix(32).allSatisfy { $0.isASCII && ($0.isLetter || $0 == "_") } ? " (\(code.prefix(32)))" : "" } ?? ""
            return .init(.invalidLineToken("LINE does not accept the token\(named)."))
        case 429:
            return .init(.lineQuotaExceeded())
        default:
            return .init(.lineUnavailable("LINE answered HTTP \(response.status)."), retryable: response.status >= 500)
        }
    }
}

/// No LINE: what a world without LINE is given (the feature is off, so nothing calls it).
public struct LineOff: LineVerifying, LineKeySetFetching {
    public init() {}

    public func verify(accessToken: String, context: CallContext) async throws(Problem) -> VerifiedProviderToken<LineUser> {
        throw Problem.lineUnavailable("LINE is not configured.")
    }

    public func fetchKeys(context: CallContext) async throws(Problem) -> LineKeySet {
        throw Problem.lineUnavailable("LINE is not configured.")
    }
}
