import Foundation
import HTTPTypes
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Issue 44: HEAD on a GET route is that GET without its body (docs/api.md#conventions, RFC 9110 §9.3.2): the same
/// status and headers, `Content-Length` included, and no body; it was 404.
@Suite struct OpsHeadTests {
    @Test func headOnEveryGETRouteIsTheGETWithoutTheBody() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            let paths: [Route: (String, [(String, String)])] = [
                .tokenExchange: ("/v1/token-exchange", [("Authorization", "Bearer " + token)]),
                .kakaoNonce: ("/v1/kakao/nonce", []),
                .kakaoUnlink: ("/v1/kakao/unlink", []),
                .legacy: ("/v1/kakao/" + token, []),
                .healthz: ("/healthz", []),
                .readyz: ("/readyz", []),
                .metrics: ("/metrics", []),
            ]
            let getRoutes = Route.allCases.filter { $0.methods.contains(.get) }
            #expect(Set(getRoutes) == Set(paths.keys), "a GET route without a HEAD case here")
            for route in getRoutes {
                let (path, headers) = try #require(paths[route])
                let get = try await world.request(.get, path, headers: headers)
                let head = try await world.request(.head, path, headers: headers)
                #expect(head.status == get.status, "\(route): HEAD \(head.status), GET \(get.status)")
                #expect(head.status != 404 || get.status == 404, "\(route)")
                #expect(head.text.isEmpty, "\(route): HEAD sent a body")
                #expect(head.header("content-type") == get.header("content-type"), "\(route)")
                if route != .metrics, route != .tokenExchange, route != .legacy, route != .kakaoNonce {
                    #expect(head.header("content-length") == get.header("content-length"), "\(route)")
                }
            }
            // A refusal is its problem's head: status, problem type and request id, no body.
            let refused = try await world.request(.head, "/v1/token-exchange")
            #expect(refused.status == 401)
            #expect(refused.header("content-type") == "application/problem+json")
            #expect(refused.header("x-request-id") != nil)
            #expect(refused.text.isEmpty)
            // A route without GET still has no HEAD.
            #expect(try await world.request(.head, "/v1/login-complete").status != 200)
        }
    }

    /// On the wire: a HEAD's answer has no body, so the next answer on the same connection is read where it starts.
    @Test func headOnTheWireLeavesTheConnectionInStep() async throws {
        try await TestWorld.with { world in
            let request = "HEAD /healthz HTTP/1.1\r\nHost: bridge\r\n\r\nGET /healthz HTTP/1.1\r\nHost: bridge\r\n\r\n"
            let port = world.bridge.port
            let bytes = try await offPool { () throws -> [UInt8] in
                let client = try HostileClient.connect(port: port)
                defer { client.close() }
                #expect(client.send(request))
                return try Self.readTwoAnswers(client)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            let parts = text.components(separatedBy: "\r\n\r\n")
            #expect(parts.count == 3, "\(text)")
            #expect(parts[0].hasPrefix("HTTP/1.1 200"), "\(text)")
            #expect(parts[1].hasPrefix("HTTP/1.1 200"), "the HEAD's answer carried a body: \(text)")
            #expect(parts[0].lowercased().contains("content-length: \(parts[2].utf8.count)"), "\(text)")
            #expect(parts[2] == #"{"status":"ok"}"#, "\(text)")
        }
    }

    /// Reads until the second answer's body is complete (its `Content-Length`), or 5 s.
    static func readTwoAnswers(_ client: HostileClient) throws -> [UInt8] {
        var buffer: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let text = String(decoding: buffer, as: UTF8.self)
            let parts = text.components(separatedBy: "\r\n\r\n")
            if parts.count >= 3, let length = parts[1].lowercased().components(separatedBy: "content-length: ").last?
                .prefix(while: \.isNumber), let expected = Int(length), parts[2].utf8.count >= expected {
                return buffer
            }
            let answer = client.readAvailable()
            if answer.isEmpty { Thread.sleep(forTimeInterval: 0.02) }
            buffer += answer
        }
        return buffer
    }
}

extension HostileClient {
    /// What has arrived so far, without waiting.
    func readAvailable() -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        let n = recv(fd, &chunk, chunk.count, Int32(MSG_DONTWAIT))
        return n > 0 ? Array(chunk[0..<n]) : []
    }
}
