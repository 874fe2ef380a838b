import BridgeJSON
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import EndToEndSupport
import UpstreamFakes

/// Security issue 27, the service's side: a route has one spelling (docs/api.md#conventions). Hummingbird's router skips
/// empty segments, so `/metrics/` and `//metrics` were served as `/metrics`, past a proxy that guards the exact path.
@Suite struct HardeningPathTests {
    static let otherSpellings = [
        "/healthz/", "//healthz", "/healthz//", "/./healthz", "/healthz/.", "/x/../healthz", "/%68ealthz", "/healthz%2F",
        "/metrics/", "//metrics", "/%6detrics", "/%6Detrics", "/metrics/..",
    ]

    @Test(arguments: otherSpellings)
    func anotherSpellingOfARouteIsNotFound(_ path: String) async throws {
        try await RouterWorld.with { world in
            let reply = try await world.get(path)
            ErrorMappingTests.expectProblem(reply, 404, "not_found")
        }
    }

    @Test func aTrailingSlashOnTheTokenRoutesIsNotFoundAndTheRoutesStillWork() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            let bearer = [("Authorization", "Bearer " + token)]
            ErrorMappingTests.expectProblem(try await world.get("/v1/token-exchange/", headers: bearer), 404, "not_found")
            ErrorMappingTests.expectProblem(try await world.get("//v1/token-exchange", headers: bearer), 404, "not_found")
            ErrorMappingTests.expectProblem(try await world.get("/v1/kakao/" + token + "/"), 404, "not_found")
            ErrorMappingTests.expectProblem(try await world.get("/v1/kakao//" + token), 404, "not_found")
            ErrorMappingTests.expectProblem(try await world.post("/v1/login-complete/", body: "{}"), 404, "not_found")
            // The one spelling is served as ever, a query string included; a legacy token with bytes no token has is
            // still refused as a request, not as a path.
            #expect(try await world.get("/v1/token-exchange", headers: bearer).status == 200)
            #expect(try await world.get("/v1/kakao/" + token).status == 200)
            #expect(try await world.get("/healthz?probe=1").status == 200)
            ErrorMappingTests.expectProblem(try await world.get("/v1/kakao/%00%ff%fe"), 400, "invalid_request")
        }
    }

    @Test func theOneSpellingRuleItself() {
        for path in ["/", "/healthz", "/v1/kakao/abc-DEF_123", "/v1/kakao/a%00b", "/v1/kakao/%20", "/a/b.c/..d/.e"] {
            #expect(CanonicalPath.isCanonical(path), "\(path)")
        }
        for path in ["", "healthz", "//", "/a/", "/a//b", "/.", "/a/..", "/%2e", "/a/%2E%2e", "/%41", "/%7e", "/a%2fb", "/a%2Fb"] {
            #expect(!CanonicalPath.isCanonical(path), "\(path)")
        }
    }
}
