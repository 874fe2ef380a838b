import CurlHTTP
import Foundation

/// The app's backend (step 6): receives `{"kakao_token": …, "token": <ID token>}` exactly as apps in the field send it.
///
/// Layout shared by every upstream client: configuration, public entry point, requests, answer decoding, error mapping.
struct BackendClient: BackendCompleting {
    private let upstream: Upstream
    private let url: String

    init(upstream: Upstream, url: String) {
        self.upstream = upstream
        self.url = url
    }

    func completeLogin(kakaoToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult {
        let body: Data
        do {
            body = try JSONCoding.encode(["kakao_token": kakaoToken, "token": idToken])
        } catch {
            throw Problem.internalError()
        }
        let request = HTTPRequest(
            method: .post, url: url,
            headers: [("Content-Type", "application/json"), ("Accept", "application/json")], body: Array(body)
        )
        // Never retried: completing a login is not known to be idempotent at the backend.
        let response: HTTPResponse
        do {
            response = try await upstream.send(request, deadline: upstream.deadline(), context: context)
        } catch {
            switch error {
            case .timeout: throw Problem.upstreamTimeout("The backend")
            case .overloaded: throw Problem.backendUnavailable("Too many calls to the backend are in flight.")
            case .unreachable(let why): throw Problem.backendUnavailable("The backend is unreachable: \(why).")
            }
        }
        return LoginResult(status: response.status, body: Self.body(response.body))
    }

    // MARK: Answers

    /// JSON is passed on as JSON; anything else as text, so the app still sees what the backend said.
    static func body(_ bytes: [UInt8]) -> JSONValue {
        if bytes.isEmpty { return .null }
        if let json = try? JSONCoding.decode(JSONValue.self, from: bytes) { return json }
        return .string(String(decoding: bytes.prefix(4096), as: UTF8.self))
    }
}
