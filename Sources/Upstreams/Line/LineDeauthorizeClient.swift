import BridgeJSON
import BridgeSupport
import CurlHTTP

/// LINE's deauthorize (docs/api.md#deleting-an-account): a stateless channel access token from
/// `POST /oauth2/v3/token` (`grant_type=client_credentials` with the channel id and secret; 15 minutes, no issue
/// limit, so one per deletion and none kept), then `POST /user/v1/deauthorize` with it and
/// `{"userAccessToken": <the person's token>}`. LINE answers 400 "invalid token" when the person already unlinked or
/// the app already deauthorized: done too.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct LineDeauthorizeClient: ProviderUnlinking {
    private let upstream: Upstream
    /// `line.api_base_url`.
    private let baseURL: String
    private let channelID: String
    private let channelSecret: String

    package init(upstream: Upstream, baseURL: String, channelID: String, channelSecret: String) {
        self.upstream = upstream
        self.baseURL = baseURL.withoutTrailingSlash
        self.channelID = channelID
        self.channelSecret = channelSecret
    }

    // MARK: Entry point

    package func unlink(_ subject: UnlinkSubject, context: CallContext) async throws(Problem) {
        guard case .accessToken(let token) = subject else { throw Problem.invalidRequest("LINE deauthorizes by access token.") }
        let channelToken: LineChannelTokenReply = try await upstream.postForm(
            baseURL + Self.tokenPath,
            fields: [("grant_type", "client_credentials"), ("client_id", channelID), ("client_secret", channelSecret)],
            Self.failures, context: context
        )
        let response = try await upstream.post(
            baseURL + Self.deauthorizePath, body: DeauthorizeBody(userAccessToken: token),
            headers: [("Authorization", "Bearer " + channelToken.accessToken)], Self.failures, context: context
        )
        try Self.judge(response)
    }

    // MARK: Requests

    package static let tokenPath = "/oauth2/v3/token"
    package static let deauthorizePath = "/user/v1/deauthorize"

    struct DeauthorizeBody: JSONWritable {
        var userAccessToken: String

        func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("userAccessToken")
            writer.string(userAccessToken)
            writer.closeObject()
        }
    }

    // MARK: Answers

    /// 2xx is deauthorized; 400 "invalid token" (handed through by the failure table) is already deauthorized.
    private static func judge(_ response: HTTPResponse) throws(Problem) {
        if (200..<300).contains(response.status) || isInvalidToken(response) { return }
        throw Problem.lineUnavailable("LINE answered HTTP \(response.status) to the deauthorize.")
    }

    private static func isInvalidToken(_ response: HTTPResponse) -> Bool {
        response.status == 400 && (try? LineMessageReply(jsonBytes: response.body))?.message == "invalid token"
    }

    // MARK: Failure table (docs/errors.md#from-line)

    /// Not retried within the request: the person's token is not kept, so the step is reported failed at once.
    package static let failures = FailureMap("LINE", unavailable: Problem.lineUnavailable) { response in
        if LineDeauthorizeClient.isInvalidToken(response) { return nil }
        switch response.status {
        case 400, 401: return .init(.lineUnavailable("LINE refused the channel's credentials or the request (HTTP \(response.status))."))
        case 429: return .init(.lineQuotaExceeded())
        default: return .init(.lineUnavailable("LINE answered HTTP \(response.status)."))
        }
    }
}

/// `POST /oauth2/v3/token`'s answer: `{"token_type": "Bearer", "access_token", "expires_in"}`.
package struct LineChannelTokenReply: JSONDecodable {
    package var accessToken: String

    package init(json: JSONValue) throws(JSONMismatch) {
        accessToken = try json.required("access_token", \.stringValue)
    }
}

/// The deauthorize's error body: `{"message": "invalid token"}`.
package struct LineMessageReply: JSONDecodable {
    package var message: String?

    package init(json: JSONValue) throws(JSONMismatch) {
        message = try json.optional("message", \.stringValue)
    }
}
