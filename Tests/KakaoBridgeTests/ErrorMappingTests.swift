import BridgeJSON
import Foundation
@testable import KakaoBridge
import StandIns
import Testing

/// Every §3 row that steps 1–3 can produce, each with its status, code and problem shape.
@Suite struct ErrorMappingTests {
    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.code == code, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.isProblem, "not a problem body: \(reply.text)", sourceLocation: sourceLocation)
    }

    @Test func missingOrMalformedAuthorization() async throws {
        try await TestWorld.with { world in
            Self.expectProblem(try await world.get("/v1/token-exchange"), 401, "missing_token")
            Self.expectProblem(
                try await world.get("/v1/token-exchange", headers: [("Authorization", "Basic dXNlcjpwYXNz")]), 401, "missing_token"
            )
            Self.expectProblem(try await world.get("/v1/token-exchange", headers: [("Authorization", "Bearer")]), 401, "missing_token")
            #expect(world.kakao.tokenInfoCalls == 0)
        }
    }

    @Test func unknownExpiredAndOtherAppTokens() async throws {
        try await TestWorld.with { world in
            Self.expectProblem(try await world.exchange("no-such-token"), 401, "invalid_kakao_token")
            let expired = world.validToken()
            world.kakao.expire(expired)
            Self.expectProblem(try await world.exchange(expired), 401, "invalid_kakao_token")
            Self.expectProblem(try await world.exchange(world.otherAppToken()), 401, "kakao_app_mismatch")
            Self.expectProblem(try await world.get("/v1/kakao/" + world.otherAppToken()), 401, "kakao_app_mismatch")
        }
    }

    @Test func kakaoAnswersThatNameDifferentUsers() async throws {
        try await TestWorld.with { world in
            world.kakao.setFault(.mismatchedUserMe)
            Self.expectProblem(try await world.exchange(world.validToken()), 401, "invalid_kakao_token")
        }
    }

    @Test(arguments: [
        (-401, 401, 401, "invalid_kakao_token"),
        (-2, 400, 401, "invalid_kakao_token"),
        (-1, 500, 502, "kakao_unavailable"),
        (-7, 400, 502, "kakao_unavailable"),
        (-9798, 400, 502, "kakao_unavailable"),
        (-10, 429, 503, "kakao_quota_exceeded"),
        (-3, 403, 502, "kakao_unavailable"),
    ])
    func kakaoErrorCodes(kakaoCode: Int, httpStatus: Int, status: Int, code: String) async throws {
        try await TestWorld.with { world in
            world.kakao.setFault(.errorCode(kakaoCode, httpStatus: httpStatus))
            let reply = try await world.exchange(world.validToken())
            Self.expectProblem(reply, status, code)
            if code == "kakao_unavailable" {
                #expect(reply.json?["detail"]?.stringValue?.contains(String(kakaoCode)) == true)
            }
        }
    }

    @Test func kakaoServerErrorsAndUnreadableAnswers() async throws {
        try await TestWorld.with { world in
            world.kakao.setFault(.httpStatus(503, body: "<html>down</html>"))
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
            world.kakao.setFault(.rawBody("{not json", contentType: "application/json"))
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
            world.kakao.setFault(.rawBody("<html>hello</html>", contentType: "text/html"))
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
        }
    }

    @Test func kakaoUnreachable() async throws {
        var options = TestWorld.Options()
        // Port 9 on loopback: nothing listens there, the connection is refused at once.
        options.configure = { $0.kakao.apiBaseURL = "http://127.0.0.1:9" }
        try await TestWorld.with(options) { world in
            Self.expectProblem(try await world.exchange(world.validToken()), 502, "kakao_unavailable")
        }
    }

    @Test func kakaoPastTheDeadline() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.upstream.timeoutMS = 300 }
        try await TestWorld.with(options) { world in
            world.kakao.setFault(.delay(.seconds(2)))
            let started = ContinuousClock.now
            Self.expectProblem(try await world.exchange(world.validToken()), 504, "upstream_timeout")
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }

    @Test func unknownRouteAndWrongMethod() async throws {
        try await TestWorld.with { world in
            Self.expectProblem(try await world.get("/v1/nothing-here"), 404, "not_found")
            let reply = try await world.post("/v1/token-exchange", body: "{}")
            Self.expectProblem(reply, 405, "method_not_allowed")
            #expect(reply.header("allow") == "GET")
        }
    }

    @Test func requestIDsAreReusedWhenSaneAndReplacedOtherwise() async throws {
        try await TestWorld.with { world in
            let sane = try await world.get("/v1/token-exchange", headers: [("X-Request-ID", "abc.DEF_123-x")])
            #expect(sane.header("x-request-id") == "abc.DEF_123-x")
            #expect(sane.json?["request_id"]?.stringValue == "abc.DEF_123-x")
            let insane = try await world.get("/v1/token-exchange", headers: [("X-Request-ID", "bad id with spaces")])
            #expect(insane.header("x-request-id") != "bad id with spaces")
            #expect(insane.header("x-request-id")?.isEmpty == false)
            let ok = try await world.exchange(world.validToken())
            #expect(ok.header("x-request-id")?.isEmpty == false)
        }
    }
}
