import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The two calls an app makes to kakao-bridge (docs/api.md): a nonce before Kakao Login, the exchange after it.
public struct BridgeClient: Sendable {
    public let baseURL: URL
    let transport: any BridgeTransport

    public init(baseURL: URL, session: URLSession = .shared) {
        self.init(baseURL: baseURL, transport: URLSessionTransport(session: session))
    }

    init(baseURL: URL, transport: any BridgeTransport) {
        self.baseURL = baseURL
        self.transport = transport
    }

    /// `GET /v1/kakao/nonce`: only when the bridge has OpenID Connect on (`kakao.oidc.audiences`).
    public func nonce() async throws -> String {
        let request = URLRequest(url: baseURL.appendingPathComponent("v1/kakao/nonce"))
        return try await send(request, as: NonceAnswer.self).nonce
    }

    /// `GET /v1/token-exchange` with the Kakao token as `Authorization: Bearer`, never in the URL.
    public func exchange(kakaoToken: String) async throws -> TokenExchange {
        var request = URLRequest(url: baseURL.appendingPathComponent("v1/token-exchange"))
        request.setValue("Bearer \(kakaoToken)", forHTTPHeaderField: "Authorization")
        return try await send(request, as: TokenExchange.self)
    }

    private func send<Answer: Decodable>(_ request: URLRequest, as: Answer.Type) async throws -> Answer {
        let (data, response) = try await transport.send(request)
        guard (200..<300).contains(response.statusCode) else {
            throw (try? JSONDecoder().decode(BridgeProblem.self, from: data))
                ?? BridgeProblem(status: response.statusCode, code: "unreadable", detail: "", requestID: "")
        }
        return try JSONDecoder().decode(Answer.self, from: data)
    }
}

/// How a request leaves the app: URLSession, or a stand-in in the tests.
protocol BridgeTransport: Sendable {
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

struct URLSessionTransport: BridgeTransport {
    let session: URLSession

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (data, http)
    }
}
