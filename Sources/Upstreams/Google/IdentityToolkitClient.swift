import BridgeJSON
import BridgeSupport
import CurlHTTP
import FoundationEssentials

/// Google's Identity Toolkit: `POST /v1/accounts:signInWithCustomToken?key=…` (docs/api.md#the-six-step-flow, steps 4–5).
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct IdentityToolkitClient: IdentityToolkitExchanging {
    private let upstream: Upstream
    private let url: String

    package init(upstream: Upstream, baseURL: String, apiKey: String) {
        self.upstream = upstream
        let base = baseURL.withoutTrailingSlash
        self.url = base + "/v1/accounts:signInWithCustomToken?key=" + FormCodec.escape(apiKey)
    }

    // MARK: Entry point

    /// Never retried: a sign-in has effects (a new user is created) and 4xx answers are final.
    package func signIn(customToken: String, context: CallContext) async throws(Problem) -> FirebaseSession {
        let reply: SignInReply = try await upstream.postJSON(
            url, body: SignInRequest(token: customToken), Self.failures, context: context
        )
        return FirebaseSession(
            idToken: reply.idToken, refreshToken: reply.refreshToken, expiresIn: reply.expiresIn, isNewUser: reply.isNewUser
        )
    }

    // MARK: Requests

    package struct SignInRequest: JSONWritable {
        package var token: String

        package init(token: String) {
            self.token = token
        }

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("token")
            writer.string(token)
            writer.key("returnSecureToken")
            writer.bool(true)
            writer.closeObject()
        }
    }

    // MARK: Answers

    /// `expiresIn` comes as a string of seconds; the app gets an integer.
    package struct SignInReply: JSONDecodable {
        package var idToken: String
        package var refreshToken: String
        package var expiresIn: Int
        package var isNewUser: Bool

        package init(json: JSONValue) throws(JSONMismatch) {
            idToken = try json.required("idToken", \.stringValue)
            refreshToken = try json.required("refreshToken", \.stringValue)
            guard let seconds = Int(try json.required("expiresIn", \.stringValue)), seconds > 0, !idToken.isEmpty else {
                throw JSONMismatch()
            }
            expiresIn = seconds
            isNewUser = try json.optional("isNewUser", \.boolValue) ?? false
        }
    }

    /// Google's message is `CODE`, `CODE : explanation`, or a sentence ("API key not valid. Please pass a valid API
    /// key."). The code is what operators search for; a sentence is passed on whole (bounded), never cut to its first word.
    package static func messageCode(_ message: String?) -> String {
        guard let message, !message.isEmpty else { return "no error message" }
        return GoogleErrorCode.leadingCode(message) ?? String(message.prefix(200))
    }

    // MARK: Failure table (docs/errors.md#from-identity-toolkit)

    package static let failures = FailureMap("Identity Toolkit", unavailable: Problem.firebaseUnavailable) { response in
        guard (400..<500).contains(response.status) else {
            return .init(.firebaseUnavailable("Identity Toolkit answered HTTP \(response.status)."))
        }
        let message = GoogleErrorCode.parse(response.body).message
        // A disabled user is the same refusal whether the user sync or Identity Toolkit noticed it.
        if messageCode(message) == "USER_DISABLED" { return .init(.userDisabled()) }
        return .init(.firebaseRejected("Identity Toolkit refused the custom token: \(messageCode(message))."))
    }
}

/// Steps 4–5: what Identity Toolkit returns for a custom token, as the service reports it (`expires_in` an integer).
public struct FirebaseSession: Sendable, Equatable {
    public var idToken: String
    public var refreshToken: String
    public var expiresIn: Int
    public var isNewUser: Bool

    public init(idToken: String, refreshToken: String, expiresIn: Int, isNewUser: Bool) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.isNewUser = isNewUser
    }
}

/// Exchanges a custom token for an ID token (`accounts:signInWithCustomToken`).
public protocol IdentityToolkitExchanging: Sendable {
    func signIn(customToken: String, context: CallContext) async throws(Problem) -> FirebaseSession
}
