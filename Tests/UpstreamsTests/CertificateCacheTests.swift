import BridgeJSON
import BridgeSupport
import CurlHTTP
import StandIns
import Testing
import Upstreams
import BridgeTestSupport

@Suite("Google securetoken certificate cache")
struct CertificateCacheTests {
    @Test func servesFromTheCacheUntilMaxAgeThenRefetches() async throws {
        try await IDTokenFixture.with(maxAge: 600) { fixture in
            let verifier = fixture.verifier()
            #expect(!verifier.isReady)
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            #expect(verifier.isReady)
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            fixture.clock.advance(599)
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            #expect(fixture.endpoint.fetchCount == 1)

            // Past max-age the known kid still answers at once, and the refetch runs behind it (stale-while-revalidate).
            fixture.clock.advance(1)
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            #expect(await Self.eventually { fixture.endpoint.fetchCount == 2 })
        }
    }

    /// Background refetches land a moment after the request that started them.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func anUnknownKidRefetchesOnceThenWaitsAMinute() async throws {
        try await IDTokenFixture.with { fixture in
            let verifier = fixture.verifier()
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            #expect(fixture.endpoint.fetchCount == 1)

            // Within the first minute after a fetch, a new kid does not refetch.
            try fixture.keys.rotate()
            let tooSoon = try fixture.token()
            #expect(await idTokenFailure(verifier, tooSoon).contains("kid"))
            #expect(fixture.endpoint.fetchCount == 1)

            // After it, the new kid triggers exactly one refetch and then verifies; the previous key still does.
            fixture.clock.advance(61)
            let rotated = try fixture.token()
            _ = try await verifier.verify(rotated, context: fixture.context)
            #expect(fixture.endpoint.fetchCount == 2)
            let previousKID = fixture.keys.publishedKeys[1].kid
            _ = try await verifier.verify(try fixture.token(signing: .kid(previousKID)), context: fixture.context)
            #expect(fixture.endpoint.fetchCount == 2)

            // A second unknown kid within 60 s of that refetch: no fetch.
            try fixture.keys.rotate()
            fixture.clock.advance(30)
            let secondUnknown = try fixture.token()
            #expect(await idTokenFailure(verifier, secondUnknown).contains("kid names no current"))
            #expect(fixture.endpoint.fetchCount == 2)
        }
    }

    @Test func aFailingEndpointLeavesTheCachedCertificatesServing() async throws {
        try await IDTokenFixture.with(maxAge: 60) { fixture in
            let verifier = fixture.verifier()
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            fixture.endpoint.setFailing(true)
            fixture.clock.advance(120)
            // Expired cache, refetch answers 503: the stale certificates still verify.
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            #expect(await Self.eventually { fixture.endpoint.fetchCount == 2 })
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            #expect(verifier.isReady)

            // Once the endpoint recovers, the next attempt refreshes.
            fixture.endpoint.setFailing(false)
            fixture.clock.advance(10)
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            try await Task.sleep(for: .milliseconds(200))
            let fetchesAfterRecovery = fixture.endpoint.fetchCount
            _ = try await verifier.verify(try fixture.token(), context: fixture.context)
            #expect(fixture.endpoint.fetchCount == fetchesAfterRecovery)
        }
    }

    @Test func aFailingEndpointWithNothingCachedIsFirebaseUnavailable() async throws {
        try await IDTokenFixture.with { fixture in
            fixture.endpoint.setFailing(true)
            let verifier = fixture.verifier()
            do {
                _ = try await verifier.verify(try fixture.token(), context: fixture.context)
                Issue.record("verified without certificates")
            } catch let problem as Problem {
                #expect(problem.code == .firebaseUnavailable)
            }
            #expect(!verifier.isReady)
            #expect(await fixture.certificates.prefetch() == false)
            fixture.endpoint.setFailing(false)
            #expect(await fixture.certificates.prefetch())
            #expect(verifier.isReady)
        }
    }

    @Test func anUnreachableEndpointWithNothingCachedIsFirebaseUnavailable() async throws {
        let http = CurlHTTPClient()
        defer { http.shutdown() }
        // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
        let certificates = PublicKeyCache.googleCertificates(GoogleCertificatesClient.live(
            upstream: Upstream(.certificates, http: http, timeout: .seconds(2), maxInFlight: 8),
            url: "http://127.0.0.1:9/certs"
        ))
        do {
            _ = try await certificates.key(for: "any", context: CallContext(requestID: "test"))
            Issue.record("a key came from nowhere")
        } catch let problem {
            #expect(problem.code == .firebaseUnavailable)
        }
    }

    @Test func concurrentVerificationsOnAColdCacheShareOneFetch() async throws {
        try await IDTokenFixture.with { fixture in
            let verifier = fixture.verifier()
            let token = try fixture.token()
            let context = fixture.context
            let accepted = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<32 {
                    group.addTask { (try? await verifier.verify(token, context: context)) != nil }
                }
                var count = 0
                for await ok in group where ok { count += 1 }
                return count
            }
            #expect(accepted == 32)
            #expect(fixture.endpoint.fetchCount == 1)
        }
    }

    @Test(arguments: [
        ("public, max-age=19204, must-revalidate, no-transform", Int64(19204) as Int64?),
        ("max-age=60", 60),
        ("  MAX-AGE = 30 ,public", 30),
        ("max-age=\"45\"", 45),
        ("private", nil),
        ("max-age=-5", nil),
        ("max-age=abc", nil),
        ("max-age", nil),
        ("", nil),
        ("=", nil),
        ("\u{00BD}=============", nil),  // the fuzzer's crashing input
        (",=,max-age=7", 7),
    ])
    func parsesMaxAgeRobustly(header: String, expected: Int64?) {
        #expect(CacheControl.maxAge(header) == expected)
    }

    @Test func withoutMaxAgeTheAnswerIsTrustedBriefly() throws {
        let keys = try SecureTokenKeys()
        let body = JSONValue.object(keys.certificatesJSON().mapValues { .string($0) })
        let response = HTTPResponse(status: 200, headers: [], body: body.jsonBytes)
        let answer = try GoogleCertificatesClient.keySet(from: response)
        // No max-age: the cache's default applies.
        #expect(answer.maxAge == nil)
        #expect(PublicKeyCache.Policy().defaultMaxAge == 60)
        #expect(answer.keys.keys.contains(keys.currentKID))

        let aged = HTTPResponse(
            status: 200, headers: [(name: "cache-control", value: "max-age=100"), (name: "age", value: "40")],
            body: body.jsonBytes
        )
        #expect(try GoogleCertificatesClient.keySet(from: aged).maxAge == 60)
    }
}
