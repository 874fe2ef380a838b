import BridgeSupport
import Foundation
import HTTPTypes
@testable import KakaoBridge
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// CORS for web apps (docs/api.md#web-clients-cors): the token exchange and the nonce route answer the origins of
/// `server.cors_origins`, matched exactly, preflight included; other origins and every other route get no CORS header.
@Suite struct OpsCrossOriginTests {
    static let app = "https://app.example.com"
    static let options = OIDC.on(RouterWorld.Options(hook: true, configure: { $0.server.corsOrigins = [Self.app, "http://localhost:3000"] }))

    static func preflight(_ world: RouterWorld, _ path: String, origin: String) async throws -> Reply {
        try await world.request(.options, path, headers: [
            ("Origin", origin), ("Access-Control-Request-Method", "GET"), ("Access-Control-Request-Headers", "authorization"),
        ])
    }

    static func corsHeaders(_ reply: Reply) -> [String] {
        reply.headers.map(\.name).filter { $0.hasPrefix("access-control-") }
    }

    @Test func aListedOriginMayReadTheExchangeAndTheNonceAndTheirProblems() async throws {
        try await RouterWorld.with(Self.options) { world in
            let token = world.validToken()
            let exchange = try await world.get("/v1/token-exchange", headers: [("Authorization", "Bearer " + token), ("Origin", Self.app)])
            #expect(exchange.status == 200)
            #expect(exchange.header("access-control-allow-origin") == Self.app)
            #expect(exchange.header("vary") == "Origin")
            #expect(exchange.header("access-control-expose-headers") == "X-Request-ID, Retry-After")
            #expect(exchange.header("access-control-allow-credentials") == nil, "a bearer token needs no credentials mode")

            let nonce = try await world.get("/v1/kakao/nonce", headers: [("Origin", "http://localhost:3000")])
            #expect(nonce.status == 200)
            #expect(nonce.header("access-control-allow-origin") == "http://localhost:3000")

            // A problem is an answer the page must be able to read too.
            let missing = try await world.get("/v1/token-exchange", headers: [("Origin", Self.app)])
            #expect(missing.status == 401 && missing.isProblem)
            #expect(missing.header("access-control-allow-origin") == Self.app)
        }
    }

    @Test func aPreflightFromAListedOriginIsAnsweredWithTheRoutesMethodsAndAuthorization() async throws {
        try await RouterWorld.with(Self.options) { world in
            for path in ["/v1/token-exchange", "/v1/kakao/nonce"] {
                let reply = try await Self.preflight(world, path, origin: Self.app)
                #expect(reply.status == 204, "\(path): \(reply.text)")
                #expect(reply.header("access-control-allow-origin") == Self.app)
                #expect(reply.header("access-control-allow-methods") == "GET")
                #expect(reply.header("access-control-allow-headers") == "Authorization")
                #expect(reply.header("access-control-max-age") == "3600")
                #expect(reply.header("vary") == "Origin")
                #expect(reply.text.isEmpty)
            }
            // An OPTIONS that is no preflight (no Access-Control-Request-Method) is what it always was: 405.
            let plain = try await world.request(.options, "/v1/token-exchange", headers: [("Origin", Self.app)])
            #expect(plain.status == 405 && plain.header("allow") == "GET")
        }
    }

    @Test func otherOriginsGetNoCORSHeaderAtAll() async throws {
        try await RouterWorld.with(Self.options) { world in
            let token = world.validToken()
            // Not listed, or listed in another spelling: exact matches only.
            for origin in ["https://evil.example.com", "https://app.example.com/", "https://APP.example.com", "http://app.example.com", "null"] {
                let preflight = try await Self.preflight(world, "/v1/token-exchange", origin: origin)
                #expect(preflight.status == 405, "\(origin)")
                #expect(Self.corsHeaders(preflight).isEmpty, "\(origin): \(preflight.headers)")
                let exchange = try await world.get("/v1/token-exchange", headers: [("Authorization", "Bearer " + token), ("Origin", origin)])
                #expect(exchange.status == 200)
                #expect(Self.corsHeaders(exchange).isEmpty && exchange.header("vary") == nil, "\(origin): \(exchange.headers)")
            }
        }
    }

    @Test func otherRoutesNeverAnswerCORSEvenToAListedOrigin() async throws {
        try await RouterWorld.with(Self.options) { world in
            let token = world.validToken()
            let routes: [(HTTPRequest.Method, String)] = [
                (.get, "/v1/kakao/" + token), (.post, "/v1/login-complete"), (.post, "/v1/users/revoke"), (.get, "/v1/kakao/unlink"),
                (.post, "/v1/kakao/events"), (.get, "/healthz"), (.get, "/readyz"), (.get, "/metrics"), (.get, "/no/such/route"),
            ]
            for (method, path) in routes {
                let reply = try await world.request(method, path, headers: [("Origin", Self.app)], body: method == .post ? "{}" : nil)
                #expect(Self.corsHeaders(reply).isEmpty, "\(path): \(reply.headers)")
                let preflight = try await Self.preflight(world, path, origin: Self.app)
                #expect(preflight.status == 405 || preflight.status == 404, "\(path): \(preflight.status)")
                #expect(Self.corsHeaders(preflight).isEmpty, "\(path): \(preflight.headers)")
            }
        }
    }

    @Test func withoutOriginsNothingChanges() async throws {
        try await RouterWorld.with(OIDC.on(RouterWorld.Options())) { world in
            let preflight = try await Self.preflight(world, "/v1/token-exchange", origin: Self.app)
            #expect(preflight.status == 405 && Self.corsHeaders(preflight).isEmpty)
            let nonce = try await world.get("/v1/kakao/nonce", headers: [("Origin", Self.app)])
            #expect(nonce.status == 200 && Self.corsHeaders(nonce).isEmpty)
        }
    }
}
