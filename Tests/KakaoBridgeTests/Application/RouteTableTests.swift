import HTTPTypes
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// The route table (`Route`) is the one declaration the router, the admission gate, the rate limiter and the metrics read.
@Suite struct RouteTableTests {
    static func samplePath(_ route: Route) -> String {
        route == .legacy ? "/v1/kakao/AbCdEf0123456789" : route.path
    }

    @Test func theRouterServesEveryRouteWithTheMethodsOfTheTableAndRefusesTheOthers() async throws {
        try await RouterWorld.with(RouterWorld.Options()) { world async throws in
            for route in Route.allCases {
                let reply = try await world.request(.put, Self.samplePath(route))
                #expect(reply.status == 405, "\(route): \(reply.text)")
                let allowed = route.methods.map(\.rawValue).joined(separator: ", ")
                #expect(reply.header("Allow") == allowed, "\(route)")
            }
            #expect(try await world.request(.put, "/v1/not-a-route").status == 404)
        }
    }

    @Test func rawPathsMatchAsTheRouterWouldAndOnlyLoginsWaitTheirTurn() {
        #expect(Route.match("/v1/kakao/nonce") == .kakaoNonce)
        #expect(Route.match("/v1/kakao/unlink") == .kakaoUnlink)
        #expect(Route.match("/v1/kakao/events") == .kakaoEvents)
        #expect(Route.match("/v1/kakao/sometoken") == .legacy)
        #expect(Route.match("/v1/kakao/") == nil)
        #expect(Route.match("/v1/kakao/a/b") == nil)
        #expect(Route.match("/v1/token-exchange") == .tokenExchange)
        for route in Route.allCases {
            let waits = RequestAdmission.isLogin(method: .get, path: Substring(Self.samplePath(route)))
            #expect(waits == (route.admission == .login), "\(route)")
        }
        #expect(RequestAdmission.admission(method: .post, path: "/v1/token-exchange") == .inPlace, "a 405 needs no turn")
    }

    @Test func everyTemplateIsAMetricLabelAndItsOwnRoute() {
        for route in Route.allCases {
            #expect(Route(template: route.path) == route)
            #expect(route.path.hasPrefix("/"))
        }
    }
}
