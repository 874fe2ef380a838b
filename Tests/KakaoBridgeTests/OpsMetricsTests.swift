import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import EndToEndSupport
import UpstreamFakes

/// `/metrics`: Prometheus text with route templates (never raw paths), statuses, latencies, upstream calls, in-flight.
/// The scrape test stays end-to-end: upstream calls are metered by the HTTP upstream layer, which in-memory fakes bypass,
/// and the registry is process-wide, so at the router's depth those lines would be other tests' (a vacuous pass).
@Suite struct OpsMetricsTests {
    @Test func metricsNameRouteTemplatesAndNeverATokenOrEmail() async throws {
        try await TestWorld.with { world in
            let token = world.validToken(email: "metrics.person@example.com")
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.get("/v1/kakao/" + token).status == 200)
            #expect(try await world.get("/no/such/" + token).status == 404)
            #expect(try await world.get("/healthz").status == 200)

            let metrics = try await world.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("content-type") == "text/plain; version=0.0.4; charset=utf-8")
            let text = metrics.text
            for expected in [
                #"kakao_bridge_requests_total{route="/v1/token-exchange",method="GET",status="200"}"#,
                #"kakao_bridge_requests_total{route="/v1/kakao/{access_token}",method="GET",status="200"}"#,
                #"kakao_bridge_requests_total{route="unmatched",method="GET",status="404"}"#,
                #"kakao_bridge_request_duration_seconds_bucket{route="/v1/token-exchange",method="GET",status="200",le="#,
                #"kakao_bridge_request_duration_seconds_count{route="/healthz",method="GET",status="200"}"#,
                "kakao_bridge_requests_in_flight",
                "kakao_bridge_logins_waiting",
                #"kakao_bridge_upstream_calls_total{upstream="kakao",outcome="ok"}"#,
                #"kakao_bridge_upstream_duration_seconds_bucket{upstream="kakao",outcome="ok",le="#,
            ] {
                #expect(text.contains(expected), "missing in /metrics: \(expected)")
            }
            #expect(!text.contains(token))
            #expect(!text.contains("metrics.person@example.com"))
            #expect(!text.contains("kakao:1234567890"))
            #expect(!text.contains("/no/such"))
        }
    }

    @Test func metricsIsGETOnly() async throws {
        try await RouterWorld.with { world in
            let reply = try await world.post("/metrics", body: "{}")
            #expect(reply.status == 405)
            #expect(reply.isProblem)
        }
    }
}
