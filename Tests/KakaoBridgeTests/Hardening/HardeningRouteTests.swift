import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import EndToEndSupport
import UpstreamFakes

/// Second hardening round, what the routes promise (router level, in-memory upstreams).
@Suite struct HardeningRouteTests {
    static let hookBearer = [("Authorization", "Bearer " + RouterWorld.hookSecret)]

    @Test func theHookIsNotPerClientLimitedButHasABudgetOfItsOwn() async throws {
        var options = RouterWorld.Options(hook: true)
        options.configure = {
            $0.rateLimit.perClientPerMinute = 2
            $0.rateLimit.hookPerMinute = 4
        }
        try await RouterWorld.with(options) { world in
            let kakao = world.validToken()
            let body = #"{"kakao_token":"\#(kakao)","token":"\#(try world.idToken(uid: "kakao:1234567890"))"}"#
            // A stranger spends nothing of the hook's budget.
            for _ in 0..<3 {
                #expect(try await world.post("/v1/login-complete", headers: [("Authorization", "Bearer wrong")], body: body).code == "unauthorized")
            }
            // Four calls from one address, twice the per-client budget: all answered.
            for call in 0..<4 {
                let reply = try await world.post("/v1/login-complete", headers: Self.hookBearer, body: body)
                #expect(reply.status == 200, "call \(call): \(reply.text)")
            }
            let limited = try await world.post("/v1/login-complete", headers: Self.hookBearer, body: body)
            #expect(limited.status == 429)
            #expect(limited.code == "rate_limited")
            #expect(limited.header("retry-after") != nil)
            // The app's routes still have their per-client limit.
            _ = try await world.exchange(kakao)
            _ = try await world.exchange(kakao)
            #expect(try await world.exchange(kakao).code == "rate_limited")
        }
    }

    @Test func problemAnswersAreNotCacheable() async throws {
        try await RouterWorld.with { world in
            for reply in [try await world.get("/v1/token-exchange"), try await world.get("/nowhere"), try await world.exchange("unknown")] {
                #expect(reply.isProblem)
                #expect(reply.header("cache-control") == "no-store", "\(reply.status)")
            }
        }
    }

    @Test(arguments: ["Access_Token", "access%5Ftoken", "ACCESS_TOKEN", "Kakao_Token", "TOKEN", "access%5ftoken", "%74oken"])
    func aTokenInTheQueryIsRefusedHoweverItsNameIsWritten(name: String) async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            let reply = try await world.get("/v1/token-exchange?\(name)=\(token)", headers: [("Authorization", "Bearer " + token)])
            #expect(reply.status == 400, "\(name): \(reply.text)")
            #expect(reply.code == "invalid_request")
            #expect(world.kakao.calls == 0)
        }
    }

    @Test func otherQueryParametersAreFine() async throws {
        try await RouterWorld.with { world in
            let reply = try await world.get("/v1/token-exchange?v=2&tokenish=1", headers: [("Authorization", "Bearer " + world.validToken())])
            #expect(reply.status == 200, "\(reply.text)")
        }
    }
}
