import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Kakao misbehaving at the socket and at the JSON level: every answer must still be the contract's problem body.
/// Each test plays many faults against one bridge (key generation makes bridges the expensive part of a test).
@Suite struct FaultKakaoTests {
    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, _ comment: String = "", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(comment): \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.code == code, "\(comment): \(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.isProblem, "\(comment): not a problem body: \(reply.text)", sourceLocation: sourceLocation)
    }

    /// Runs a world whose Kakao is a `FaultServer`; the verification cache is off so every request reaches it.
    static func withFaultyKakao(
        timeoutMS: Int = 2000, _ script: @escaping FaultServer.Script, _ body: (TestWorld, FaultServer) async throws -> Void
    ) async throws {
        let server = try FaultServer(script)
        defer { server.stop() }
        var options = TestWorld.Options()
        options.configure = {
            $0.kakao.apiBaseURL = server.baseURL
            $0.upstream.timeoutMS = timeoutMS
            $0.kakao.cacheSeconds = 0
            $0.rateLimit.perClientPerMinute = 0
        }
        try await TestWorld.with(options) { world in try await body(world, server) }
    }

    enum SocketFault: String, CaseIterable, Sendable {
        case resetMidBody, truncated, hangUp, floodWithLength, floodChunked, htmlPage, invalidUTF8, notJSON

        var action: FaultServer.Action {
            switch self {
            case .resetMidBody: .resetMidBody
            case .truncated: .truncated
            case .hangUp: .hangUp
            case .floodWithLength: .flood(bytes: 50 << 20, chunked: false)
            case .floodChunked: .flood(bytes: 50 << 20, chunked: true)
            case .htmlPage: .respond(status: 200, contentType: "text/html", body: Array("<html><body>Captive portal</body></html>".utf8))
            case .invalidUTF8:
                .respond(status: 200, contentType: "application/json",
                         body: Array(#"{"id":1234567890,"expires_in":100,"app_id":424242,"x":""#.utf8) + [0xFF, 0xFE, 0xC3] + Array(#""}"#.utf8))
            case .notJSON: .respond(status: 200, contentType: "application/json", body: Array("{\"id\":".utf8))
            }
        }
    }

    @Test func socketFaultsOnEitherEndpoint() async throws {
        try await Self.withFaultyKakao(CannedKakao.script { _, _ in nil }) { world, server in
            let healthy = try await world.exchange("sometoken")
            #expect(healthy.status == 200, "canned answers: \(healthy.text)")
            for endpoint in [CannedKakao.tokenInfoPath, CannedKakao.userMePath] {
                for fault in SocketFault.allCases {
                    server.play(CannedKakao.script { path, _ in path == endpoint ? fault.action : nil })
                    let started = ContinuousClock.now
                    Self.expectProblem(try await world.exchange("sometoken"), 502, "kakao_unavailable", "\(endpoint) \(fault)")
                    #expect(ContinuousClock.now - started < TestTiming.budget(.seconds(2)), "\(endpoint) \(fault)")
                    if fault == .floodChunked || fault == .floodWithLength {
                        // Cut at the 1 MiB cap (retries included): the sender is stopped long before 50 MB.
                        #expect(server.totalBytesSent < 20 << 20, "\(fault): sent \(server.totalBytesSent) bytes")
                    }
                }
            }
        }
    }

    @Test func redirectsAreNotFollowed() async throws {
        try await TestWorld.with { world in
            let target = world.servers.kakao.baseURL
            try await Self.withFaultyKakao({ path, _ in .redirect(location: target + path) }) { redirected, _ in
                Self.expectProblem(try await redirected.exchange(world.validToken()), 502, "kakao_unavailable")
            }
            #expect(world.kakao.tokenInfoCalls == 0)
            #expect(world.kakao.userMeCalls == 0)
        }
    }

    @Test func trickleSlowerThanTheDeadline() async throws {
        try await Self.withFaultyKakao(timeoutMS: 600, { _, _ in .trickle(interval: .milliseconds(100)) }) { world, _ in
            let started = ContinuousClock.now
            Self.expectProblem(try await world.exchange("sometoken"), 504, "upstream_timeout")
            #expect(ContinuousClock.now - started < TestTiming.budget(.milliseconds(2000)))
        }
    }

    /// `id` fields that no Kakao user has: each is an unreadable answer, not a verdict on the token.
    static let badIDs = [#""1234567890""#, "-5", "0", "9223372036854775808", "123456789012345678901234567890", "1.5", "null", "true"]

    @Test func idsThatAreNotUserIDs() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.kakao.cacheSeconds = 0 }
        try await TestWorld.with(options) { world in
            let token = world.validToken()
            for id in Self.badIDs {
                world.kakao.setFault(
                    .rawBody(#"{"id":\#(id),"expires_in":100,"app_id":\#(TestWorld.appID)}"#, contentType: "application/json"),
                    endpoint: .tokenInfo
                )
                Self.expectProblem(try await world.exchange(token), 502, "kakao_unavailable", "token info id \(id)")
                world.kakao.setFault(nil)
                world.kakao.setFault(.rawBody(#"{"id":\#(id),"kakao_account":{}}"#, contentType: "application/json"), endpoint: .userMe)
                Self.expectProblem(try await world.exchange(token), 502, "kakao_unavailable", "profile id \(id)")
                world.kakao.setFault(nil)
            }
            // The largest id is a real one, and stays exact.
            let reply = try await world.exchange(world.validToken(id: Int64.max))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.text.contains(#""id":9223372036854775807"#))
        }
    }

    @Test func unreadableAnswers() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.kakao.cacheSeconds = 0 }
        try await TestWorld.with(options) { world in
            let token = world.validToken()
            let nested = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
            world.kakao.setFault(.rawBody(#"{"id":1,"app_id":1,"x":\#(nested)}"#, contentType: "application/json"), endpoint: .tokenInfo)
            Self.expectProblem(try await world.exchange(token), 502, "kakao_unavailable", "deep nesting")
            world.kakao.setFault(.httpStatus(401, body: "Unauthorized"))
            Self.expectProblem(try await world.exchange(token), 502, "kakao_unavailable", "401 without a code")
            world.kakao.setFault(.httpStatus(400, body: #"{"code":"-401"}"#))
            Self.expectProblem(try await world.exchange(token), 502, "kakao_unavailable", "code as a string")
            world.kakao.setFault(nil)
            #expect(try await world.exchange(token).status == 200)
        }
    }

    // Fault classes that reach the bridge through libcurl (moved here from the router-level error mapping).

    @Test func kakaoAnswersThatNameDifferentUsers() async throws {
        try await TestWorld.with { world in
            world.kakao.setFault(.mismatchedUserMe)
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 401, "invalid_kakao_token")
        }
    }

    @Test func kakaoServerErrorsAndUnreadableAnswers() async throws {
        try await TestWorld.with { world in
            world.kakao.setFault(.httpStatus(503, body: "<html>down</html>"))
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
            world.kakao.setFault(.rawBody("{not json", contentType: "application/json"))
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
            world.kakao.setFault(.rawBody("<html>hello</html>", contentType: "text/html"))
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
        }
    }

    @Test func kakaoUnreachable() async throws {
        var options = TestWorld.Options()
        // Port 9 on loopback: nothing listens there, the connection is refused at once.
        options.configure = { $0.kakao.apiBaseURL = "http://127.0.0.1:9" }
        try await TestWorld.with(options) { world in
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
        }
    }

    @Test func kakaoPastTheDeadline() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.upstream.timeoutMS = 300 }
        try await TestWorld.with(options) { world in
            world.kakao.setFault(.delay(.seconds(2)))
            let started = ContinuousClock.now
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 504, "upstream_timeout")
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }
}
