import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import BridgeTestSupport
import EndToEndSupport

/// `rate_limit.per_client_per_minute`: a token bucket per client, 429 `rate_limited` with `Retry-After`, probes exempt.
/// At the router's depth every request comes from the one client the router test framework has (no socket peer).
@Suite struct OpsRateLimitTests {
    @Test func overTheBudgetIs429WithRetryAfterAndAProblemBody() async throws {
        var options = RouterWorld.Options()
        options.configure = { $0.rateLimit.perClientPerMinute = 3 }
        try await RouterWorld.with(options) { world in
            for _ in 0..<3 {
                #expect(try await world.get("/v1/token-exchange").code == "missing_token")
            }
            let limited = try await world.get("/v1/token-exchange")
            #expect(limited.status == 429)
            #expect(limited.isProblem)
            #expect(limited.code == "rate_limited")
            let retryAfter = Int(limited.header("retry-after") ?? "")
            #expect(retryAfter != nil && retryAfter! >= 1 && retryAfter! <= 20)
            // Probes and the scrape are never limited.
            for path in ["/healthz", "/readyz", "/metrics"] {
                #expect(try await world.get(path).status == 200, "\(path) was rate limited")
            }
            let metrics = try await world.get("/metrics").text
            #expect(metrics.contains("kakao_bridge_rate_limited_total"))
            #expect(metrics.contains(#"kakao_bridge_requests_total{route="/v1/token-exchange",method="GET",status="429"}"#))
        }
    }

    @Test func zeroTurnsItOff() async throws {
        var options = RouterWorld.Options()
        options.configure = { $0.rateLimit.perClientPerMinute = 0 }
        try await RouterWorld.with(options) { world in
            for _ in 0..<20 {
                let reply = try await world.get("/v1/token-exchange")
                #expect(reply.status == 401)
            }
        }
    }

    @Test func bucketsRefillAndClientsAreIndependent() {
        let limiter = RateLimiter()
        let start = ContinuousClock.now
        for _ in 0..<60 { #expect(limiter.take(client: "a", perMinute: 60, now: start) == .allowed) }
        #expect(limiter.take(client: "a", perMinute: 60, now: start) == .limited(retryAfterSeconds: 1))
        #expect(limiter.take(client: "b", perMinute: 60, now: start) == .allowed)
        // One token per second at 60 per minute.
        #expect(limiter.take(client: "a", perMinute: 60, now: start.advanced(by: .seconds(1))) == .allowed)
        #expect(limiter.take(client: "a", perMinute: 60, now: start.advanced(by: .seconds(1))) != .allowed)
        // At 6 per minute the next token is 10 s away.
        let slow = RateLimiter()
        for _ in 0..<6 { _ = slow.take(client: "c", perMinute: 6, now: start) }
        #expect(slow.take(client: "c", perMinute: 6, now: start) == .limited(retryAfterSeconds: 10))
    }

    @Test func memoryIsBounded() {
        let limiter = RateLimiter(maxClients: 1000)
        let start = ContinuousClock.now
        for index in 0..<10_000 {
            _ = limiter.take(client: "10.0.\(index / 256).\(index % 256)", perMinute: 600, now: start)
        }
        #expect(limiter.trackedClients <= 1000)
        // Eviction drops buckets that have refilled (forgetting them changes nothing) before a client that is limited.
        let busy = RateLimiter(maxClients: 10)
        let earlier = start.advanced(by: .seconds(-120))
        for index in 0..<9 { _ = busy.take(client: "idle\(index)", perMinute: 5, now: earlier) }
        for _ in 0..<5 { _ = busy.take(client: "busy", perMinute: 5, now: start) }
        _ = busy.take(client: "newcomer", perMinute: 5, now: start)
        #expect(busy.trackedClients == 2)
        #expect(busy.take(client: "busy", perMinute: 5, now: start) != .allowed)
    }
}
