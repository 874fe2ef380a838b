import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import CurlHTTP
import HTTPTypes
import StandIns
import Testing
import Upstreams
import EndToEndSupport
import UpstreamFakes

/// Every row of docs/errors.md that steps 1–3 can produce, each with its status, code and problem shape, at the router's
/// depth with in-memory upstreams. What Kakao's answers look like on the wire is `FaultKakaoTests`' business.
@Suite struct ErrorMappingTests {
    static func expectProblem(_ reply: Reply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.code == code, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.isProblem, "not a problem body: \(reply.text)", sourceLocation: sourceLocation)
    }

    @Test func missingOrMalformedAuthorization() async throws {
        try await RouterWorld.with { world in
            Self.expectProblem(try await world.get("/v1/token-exchange"), 401, "missing_token")
            Self.expectProblem(
                try await world.get("/v1/token-exchange", headers: [("Authorization", "Basic dXNlcjpwYXNz")]), 401, "missing_token"
            )
            Self.expectProblem(try await world.get("/v1/token-exchange", headers: [("Authorization", "Bearer")]), 401, "missing_token")
            #expect(world.kakao.calls == 0)
        }
    }

    @Test func unknownExpiredAndOtherAppTokens() async throws {
        try await RouterWorld.with { world in
            Self.expectProblem(try await world.exchange("no-such-token"), 401, "invalid_kakao_token")
            let expired = world.validToken()
            world.kakao.expire(expired)
            Self.expectProblem(try await world.exchange(expired), 401, "invalid_kakao_token")
            Self.expectProblem(try await world.exchange(world.otherAppToken()), 401, "kakao_app_mismatch")
            Self.expectProblem(try await world.get("/v1/kakao/" + world.otherAppToken()), 401, "kakao_app_mismatch")
        }
    }

    /// Kakao's error codes through the Kakao client's failure table: the table is the whole mapping, so it is tested as one.
    @Test(arguments: [
        (-401, 401, 401, "invalid_kakao_token", false),
        (-2, 400, 401, "invalid_kakao_token", false),
        (-1, 500, 502, "kakao_unavailable", true),
        (-7, 400, 502, "kakao_unavailable", true),
        (-9798, 400, 502, "kakao_unavailable", false),
        (-10, 429, 503, "kakao_quota_exceeded", false),
        (-3, 403, 502, "kakao_unavailable", false),
    ])
    func kakaoErrorCodes(kakaoCode: Int, httpStatus: Int, status: Int, code: String, retryable: Bool) throws {
        let body = Array(#"{"msg":"x","code":\#(kakaoCode)}"#.utf8)
        guard case .fail(let problem, let retry) = KakaoClient.failures.verdict(.success(HTTPResponse(status: httpStatus, headers: [], body: body))) else {
            Issue.record("an error answer was taken for an answer")
            return
        }
        #expect(problem.status.code == status)
        #expect(problem.code.rawValue == code)
        #expect(retry == retryable)
        if code == "kakao_unavailable" { #expect(problem.detail.contains(String(kakaoCode))) }
        // And through the application: the problem body the app gets.
        let transient = KakaoClient.failures.verdict(.success(HTTPResponse(status: 503, headers: [], body: Array("<html>".utf8))))
        guard case .fail(let outage, true) = transient else {
            Issue.record("a 5xx without a code is a retryable outage")
            return
        }
        #expect(outage.code == .kakaoUnavailable)
    }

    @Test func upstreamProblemsReachTheAppAsProblemBodies() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            world.kakao.fail(with: .kakaoQuotaExceeded())
            Self.expectProblem(try await world.exchange(token), 503, "kakao_quota_exceeded")
            world.kakao.fail(with: .upstreamTimeout("Kakao"))
            Self.expectProblem(try await world.exchange(token), 504, "upstream_timeout")
            world.kakao.fail(with: .kakaoUnavailable("Kakao is unreachable: could not connect."))
            let down = try await world.exchange(token)
            Self.expectProblem(down, 502, "kakao_unavailable")
        }
    }

    @Test func unknownRouteAndWrongMethod() async throws {
        try await RouterWorld.with { world in
            Self.expectProblem(try await world.get("/v1/nothing-here"), 404, "not_found")
            let reply = try await world.post("/v1/token-exchange", body: "{}")
            Self.expectProblem(reply, 405, "method_not_allowed")
            #expect(reply.header("allow") == "GET")
        }
    }

    @Test func requestIDsAreReusedWhenSaneAndReplacedOtherwise() async throws {
        try await RouterWorld.with { world in
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
