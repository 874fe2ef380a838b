import BridgeJSON
import Foundation
import NIOCore
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Clients that lie, flood, dribble or send garbage: each gets a contract problem body (or a closed connection), never a
/// crash, a hang, or an answer of another shape; and none can starve the others.
@Suite struct HostileClientTests {
    static func expectProblem(_ answer: HostileClient.Answer, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == status, "\(text)", sourceLocation: sourceLocation)
        #expect(answer.code == code, "\(text)", sourceLocation: sourceLocation)
        #expect(answer.isProblem, "not a problem body: \(answer.headers) \(text)", sourceLocation: sourceLocation)
    }

    static func request(_ method: String, _ path: String, headers: [String] = [], body: [UInt8] = []) -> [UInt8] {
        let head = ["\(method) \(path) HTTP/1.1", "Host: localhost", "Connection: close"] + headers
            + (body.isEmpty && method == "GET" ? [] : ["Content-Length: \(body.count)"])
        return Array((head + ["", ""]).joined(separator: "\r\n").utf8) + body
    }

    static var hook: TestWorld.Options {
        var options = TestWorld.Options()
        options.hook = true
        return options
    }

    // MARK: Heads

    @Test func hostileHeadsAndTokens() async throws {
        try await TestWorld.with { world in
            let big = "X-Big: " + String(repeating: "a", count: 40 << 10)
            Self.expectProblem(try await HostileClient.exchange(port: world.bridge.port, Self.request("GET", "/healthz", headers: [big])), 400, "invalid_request")
            let many = (0..<200).map { "X-H\($0): v" }
            Self.expectProblem(try await HostileClient.exchange(port: world.bridge.port, Self.request("GET", "/healthz", headers: many)), 400, "invalid_request")
            let longPath = "/v1/" + String(repeating: "p", count: 40 << 10)
            Self.expectProblem(try await HostileClient.exchange(port: world.bridge.port, Self.request("GET", longPath)), 400, "invalid_request")
            for garbage in ["HELLO\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET /healthz HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                            "GET /healthz HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"] {
                let answer = try await HostileClient.exchange(port: world.bridge.port, garbage)
                #expect(answer.status == 400 && answer.isProblem, "\(garbage.debugDescription): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            }

            let port = world.bridge.port
            let head = Array("GET /v1/token-exchange HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ab".utf8)
                + [0xFF, 0xFE, 0xC3] + Array("cd\r\n\r\n".utf8)
            let answer = try await HostileClient.exchange(port: port, head)
            #expect([400, 401].contains(answer.status) && answer.isProblem, "\(String(decoding: answer.body, as: UTF8.self))")
            let id = Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-ID: a".utf8) + [0xC3, 0x28] + Array("\r\n\r\n".utf8)
            let echoed = try await HostileClient.exchange(port: port, id)
            #expect(echoed.status == 200)
            #expect(echoed.headers["x-request-id"].map { RequestIDs.sane($0) != nil } == true)
            #expect(world.kakao.tokenInfoCalls == 0)

            // Tokens too long or with impossible characters never reach Kakao either.
            let long = String(repeating: "A", count: RequestLimits.maxTokenBytes + 1)
            ErrorMappingTests.expectProblem(try await world.exchange(long), 400, "invalid_request")
            ErrorMappingTests.expectProblem(try await world.get("/v1/kakao/" + long), 400, "invalid_request")
            ErrorMappingTests.expectProblem(try await world.exchange("bad\"token<script>"), 400, "invalid_request")
            ErrorMappingTests.expectProblem(try await world.get("/v1/kakao/%00%ff%fe"), 400, "invalid_request")
            #expect(world.kakao.tokenInfoCalls == 0)
        }
    }

    // MARK: Bodies

    @Test func bodiesOverTheCap() async throws {
        try await TestWorld.with(Self.hook) { world in
            let port = world.bridge.port
            let auth = "Authorization: Bearer " + TestWorld.hookSecret
            let big = Array(repeating: UInt8(ascii: " "), count: RequestLimits.maxBodyBytes + 1)
            Self.expectProblem(try await HostileClient.exchange(port: port, Self.request("POST", "/v1/login-complete", headers: [auth, "Content-Type: application/json"], body: big)), 413, "payload_too_large")

            // A lie in Content-Length is refused before any byte of the body arrives.
            let started = ContinuousClock.now
            let liar = Array("POST /v1/login-complete HTTP/1.1\r\nHost: x\r\n\(auth)\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{".utf8)
            Self.expectProblem(try await HostileClient.exchange(port: port, liar, timeout: .seconds(3)), 413, "payload_too_large")
            #expect(ContinuousClock.now - started < TestTiming.budget(.seconds(2)))

            // Chunked, no length announced: cut at the cap.
            let client = try HostileClient.connect(port: port)
            defer { client.close() }
            client.send("POST /v1/login-complete HTTP/1.1\r\nHost: x\r\n\(auth)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            let piece = String(repeating: " ", count: 8192)
            for _ in 0..<10 { client.send(String(8192, radix: 16) + "\r\n" + piece + "\r\n") }
            Self.expectProblem(try await client.answer(), 413, "payload_too_large")

            let bigText = String(repeating: " ", count: 200_000)
            ErrorMappingTests.expectProblem(try await world.post("/v1/login-complete", body: bigText), 401, "unauthorized")
            ErrorMappingTests.expectProblem(try await world.post("/v1/token-exchange", body: bigText), 405, "method_not_allowed")

            for body in Self.malformedBodies {
                let reply = try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer " + TestWorld.hookSecret)], body: body)
                ErrorMappingTests.expectProblem(reply, 400, "invalid_request")
            }

            let invalid = Array(#"{"kakao_token":""#.utf8) + [0xFF, 0xC3, 0x28] + Array(#"","token":"a.b.c"}"#.utf8)
            let answer = try await HostileClient.exchange(port: world.bridge.port, Self.request(
                "POST", "/v1/login-complete", headers: ["Authorization: Bearer " + TestWorld.hookSecret, "Content-Type: application/json"], body: invalid
            ))
            Self.expectProblem(answer, 400, "invalid_request")
        }
    }

    static let malformedBodies = [
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        String(repeating: "[", count: 60_000),
        #"{"kakao_token":"#  + String(repeating: #"{"a":"#, count: 5000) + "1" + String(repeating: "}", count: 5001),
        #"{"kakao_token":"abc","token":"#,
        #"{"kakao_token":1,"token":2}"#,
        #"{"kakao_token":"abc"}"#,
        "null",
        "",
    ]

    // MARK: Routes and methods

    @Test func unknownRoutesAndWrongMethods() async throws {
        try await TestWorld.with(Self.hook) { world in
            for path in ["/", "/v1", "/v1/", "/v1/kakao", "/v1/kakao/a/b", "/v2/token-exchange", "/%2e%2e/etc/passwd", "/metrics/x",
                         "/v1/token-exchange/extra"] {
                ErrorMappingTests.expectProblem(try await world.get(path), 404, "not_found")
            }
            let port = world.bridge.port
            for (method, path, allow) in [("DELETE", "/v1/token-exchange", "GET"), ("PUT", "/v1/login-complete", "POST"),
                                          ("GET", "/v1/login-complete", "POST"), ("PATCH", "/healthz", "GET"),
                                          ("POST", "/v1/kakao/sometoken", "GET"), ("OPTIONS", "/readyz", "GET")] {
                let answer = try await HostileClient.exchange(port: port, Self.request(method, path))
                Self.expectProblem(answer, 405, "method_not_allowed")
                #expect(answer.headers["allow"] == allow, "\(method) \(path)")
            }
            let odd = try await HostileClient.exchange(port: port, Self.request("BREW", "/v1/token-exchange"))
            #expect([400, 404, 405].contains(odd.status) && odd.isProblem, "\(odd.status) \(String(decoding: odd.body, as: UTF8.self))")
        }
    }

    // MARK: Idle and slow clients

    @Test func idleConnectionsCannotStarveOthers() async throws {
        try await ServerLimits.$idleTimeout.withValue(.milliseconds(1000)) {
            try await TestWorld.with { world in
                let port = world.bridge.port
                var idle: [HostileClient] = []
                defer { for client in idle { client.close() } }
                idle = try await offPool { try (0..<500).map { _ in try HostileClient.connect(port: port) } }
                // A slowloris: a head dribbled one byte at a time never completes, so the idle timer is never reset.
                let slow = try HostileClient.connect(port: port)
                defer { slow.close() }
                slow.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                let dribble = Task.detached {
                    for _ in 0..<30 {
                        guard slow.send("a") else { return }
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
                defer { dribble.cancel() }

                let started = ContinuousClock.now
                let reply = try await world.exchange(world.validToken())
                #expect(reply.status == 200, "\(reply.text)")
                #expect(ContinuousClock.now - started < TestTiming.budget(.milliseconds(1000)))

                #expect(try await slow.closed(within: .milliseconds(2500)), "the slow client was not cut off")
                var closed = 0
                for client in idle {
                    if try await client.closed(within: .milliseconds(closed == 0 ? 2500 : 50)) { closed += 1 }
                }
                #expect(closed == 500, "\(closed) of 500 idle connections closed")
                #expect(try await world.get("/healthz").status == 200)
            }
        }
    }
}
