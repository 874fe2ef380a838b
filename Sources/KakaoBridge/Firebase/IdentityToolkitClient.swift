import CurlHTTP
import Foundation

/// Google's Identity Toolkit: `POST /v1/accounts:signInWithCustomToken?key=…` (steps 4–5).
///
/// Layout shared by every upstream client: configuration, public entry point, requests, answer decoding, error mapping.
struct IdentityToolkitClient: IdentityToolkitExchanging {
    private let upstream: Upstream
    private let url: String

    init(upstream: Upstream, baseURL: String, apiKey: String) {
        self.upstream = upstream
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let key = apiKey.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(["&", "=", "+"])) ?? apiKey
        self.url = base + "/v1/accounts:signInWithCustomToken?key=" + key
    }

    func signIn(customToken: String, context: CallContext) async throws(Problem) -> FirebaseSession {
        let body: Data
        do {
            body = try JSONCoding.encode(SignInRequest(token: customToken, returnSecureToken: true))
        } catch {
            throw Problem.internalError()
        }
        let request = HTTPRequest(
            method: .post, url: url,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")], body: Array(body)
        )
        // Never retried: a sign-in has effects (a new user is created) and 4xx answers are final.
        let response: HTTPResponse
        do {
            response = try await upstream.send(request, deadline: upstream.deadline(), context: context)
        } catch {
            throw Self.problem(for: error)
        }
        return try Self.session(from: response)
    }

    // MARK: Requests and answers

    private struct SignInRequest: Encodable {
        var token: String
        var returnSecureToken: Bool
    }

    private struct SignInReply: Decodable {
        var idToken: String
        var refreshToken: String
        var expiresIn: String
        var isNewUser: Bool?
    }

    private struct GoogleError: Decodable {
        struct Body: Decodable { var message: String? }
        var error: Body
    }

    // MARK: Error mapping (contract §3)

    static func session(from response: HTTPResponse) throws(Problem) -> FirebaseSession {
        switch response.status {
        case 200..<300:
            guard let reply = try? JSONCoding.decode(SignInReply.self, from: response.body),
                  !reply.idToken.isEmpty, let expiresIn = Int(reply.expiresIn), expiresIn > 0
            else { throw Problem.firebaseUnavailable("Identity Toolkit's answer could not be read.") }
            return FirebaseSession(
                idToken: reply.idToken, refreshToken: reply.refreshToken, expiresIn: expiresIn,
                isNewUser: reply.isNewUser ?? false
            )
        case 400..<500:
            let message = (try? JSONCoding.decode(GoogleError.self, from: response.body))?.error.message
            throw Problem.firebaseRejected("Identity Toolkit refused the custom token: \(messageCode(message)).")
        default:
            throw Problem.firebaseUnavailable("Identity Toolkit answered HTTP \(response.status).")
        }
    }

    /// Google's message is `CODE : explanation` or a sentence; the code is what operators search for.
    static func messageCode(_ message: String?) -> String {
        guard let message, !message.isEmpty else { return "no error message" }
        let code = message.split(separator: " ", maxSplits: 1).first.map(String.init) ?? message
        let isCode = code.allSatisfy { $0.isUppercase || $0 == "_" || $0.isNumber }
        return isCode ? code : String(message.prefix(200))
    }

    static func problem(for failure: Upstream.Failure) -> Problem {
        switch failure {
        case .timeout: .upstreamTimeout("Identity Toolkit")
        case .overloaded: .firebaseUnavailable("Too many calls to Identity Toolkit are in flight.")
        case .unreachable(let why): .firebaseUnavailable("Identity Toolkit is unreachable: \(why).")
        }
    }
}
