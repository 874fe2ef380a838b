import BridgeJSON
import BridgeSupport
import CurlHTTP

/// The app's backend (docs/api.md#the-six-step-flow, step 6): receives `{"kakao_token": …, "token": <ID token>}` exactly as apps in the
/// field send it.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct BackendClient: BackendCompleting {
    private let upstream: Upstream
    private let url: String

    package init(upstream: Upstream, url: String) {
        self.upstream = upstream
        self.url = url
    }

    // MARK: Entry point

    /// Never retried: completing a login is not known to be idempotent at the backend. Any status comes back to the
    /// caller, which turns a refusal into `backend_rejected` with the backend's answer.
    package func completeLogin(kakaoToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult {
        let response = try await upstream.post(url, body: LoginBody(kakaoToken: kakaoToken, idToken: idToken), Self.failures, context: context)
        return LoginResult(status: response.status, body: Self.body(response.body))
    }

    /// Naver's and LINE's logins (docs/api.md#the-six-step-flow, step 6): `{"provider", "provider_token", "token"}`.
    package func completeLogin(provider: Provider, providerToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult {
        guard provider != .kakao else { return try await completeLogin(kakaoToken: providerToken, idToken: idToken, context: context) }
        let body = ProviderLoginBody(provider: provider, providerToken: providerToken, idToken: idToken)
        let response = try await upstream.post(url, body: body, Self.failures, context: context)
        return LoginResult(status: response.status, body: Self.body(response.body))
    }

    // MARK: Requests

    /// A Naver or LINE login's body: the provider first, so that a backend tells the two shapes apart by one member.
    package struct ProviderLoginBody: JSONWritable {
        package var provider: Provider
        package var providerToken: String
        package var idToken: String

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("provider")
            writer.string(provider.rawValue)
            writer.key("provider_token")
            writer.string(providerToken)
            writer.key("token")
            writer.string(idToken)
            writer.closeObject()
        }
    }

    /// Exactly these two keys, in this order, as existing apps send them.
    package struct LoginBody: JSONWritable {
        package var kakaoToken: String
        package var idToken: String

        package init(kakaoToken: String, idToken: String) {
            self.kakaoToken = kakaoToken
            self.idToken = idToken
        }

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("kakao_token")
            writer.string(kakaoToken)
            writer.key("token")
            writer.string(idToken)
            writer.closeObject()
        }
    }

    // MARK: Answers

    /// JSON is passed on as JSON; anything else as text, so the app still sees what the backend said.
    package static func body(_ bytes: [UInt8]) -> JSONValue {
        if bytes.isEmpty { return .null }
        if let json = JSONValue.parse(bytes) { return json }
        return .string(String(decoding: bytes.prefix(4096), as: UTF8.self))
    }

    // MARK: Failure table (docs/errors.md#from-the-backend)

    package static let failures = FailureMap("the backend", unavailable: Problem.backendUnavailable) { _ in nil }
}

/// POSTs `{"kakao_token", "token"}` to the app's backend, as apps in the field do; for Naver and LINE,
/// `{"provider", "provider_token", "token"}`.
public protocol BackendCompleting: Sendable {
    func completeLogin(kakaoToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult
    func completeLogin(provider: Provider, providerToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult
}

extension BackendCompleting {
    /// A backend that only knows Kakao's shape (a test's fake): Kakao's logins reach it, nothing else does.
    public func completeLogin(provider: Provider, providerToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult {
        guard provider == .kakao else { throw Problem.backendUnavailable("This backend takes Kakao logins only.") }
        return try await completeLogin(kakaoToken: providerToken, idToken: idToken, context: context)
    }
}
