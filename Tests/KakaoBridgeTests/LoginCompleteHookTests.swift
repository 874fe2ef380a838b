import BridgeJSON
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// `POST /v1/login-complete`, the backend's hook (docs/api.md#post-v1login-complete): its rules at the router's depth,
/// with in-memory upstreams. The hook called by the backend stand-in over HTTP is `FullFlowTests`' business.
@Suite("Login-complete hook")
struct LoginCompleteHookTests {
    static let bearer = [("Authorization", "Bearer " + RouterWorld.hookSecret)]

    static func idToken(_ world: RouterWorld, uid: String) throws -> String {
        try world.idToken(uid: uid)
    }

    static func body(kakao: String, token: String) -> String {
        #"{"kakao_token":"\#(kakao)","token":"\#(token)"}"#
    }

    @Test func answersWhoTheUserIs() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let kakao = world.validToken(id: 1_234_567_890)
            let token = try Self.idToken(world, uid: "kakao:1234567890")
            let reply = try await world.post("/v1/login-complete", headers: Self.bearer, body: Self.body(kakao: kakao, token: token))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"]?.stringValue == "kakao:1234567890")
            #expect(reply.json?["kakao"]?["id"]?.int64Value == 1_234_567_890)
            #expect(reply.json?["claims"]?["sub"]?.stringValue == "kakao:1234567890")
            #expect(reply.json?["claims"]?["firebase"]?["sign_in_provider"]?.stringValue == "custom")
        }
    }

    @Test func isReadyOnceCertificatesArrived() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            var ready = false
            for _ in 0..<50 where !ready {
                ready = try await world.get("/readyz").status == 200
                if !ready { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(ready)
            #expect(world.certificates.fetchCount >= 1)
        }
    }

    @Test func isNotFoundWithoutAHookSecret() async throws {
        try await RouterWorld.with { world in
            let reply = try await world.post("/v1/login-complete", headers: Self.bearer, body: Self.body(kakao: "a", token: "b"))
            #expect(reply.status == 404)
            #expect(reply.code == "not_found")
            #expect(reply.isProblem)
        }
    }

    @Test func refusesAMissingOrWrongSecretAsUnauthorized() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let body = Self.body(kakao: world.validToken(), token: try Self.idToken(world, uid: "kakao:1234567890"))
            let attempts: [[(String, String)]] = [
                [],
                [("Authorization", "Bearer wrong-secret")],
                [("Authorization", "Bearer " + RouterWorld.hookSecret + "x")],
                [("Authorization", "Basic " + RouterWorld.hookSecret)],
                [("Authorization", "Bearer")],
            ]
            for headers in attempts {
                let reply = try await world.post("/v1/login-complete", headers: headers, body: body)
                #expect(reply.status == 401)
                #expect(reply.code == "unauthorized")
                #expect(reply.isProblem)
            }
        }
    }

    @Test func refusesOtherMethods() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let reply = try await world.get("/v1/login-complete", headers: Self.bearer)
            #expect(reply.status == 405)
            #expect(reply.code == "method_not_allowed")
            #expect(reply.header("allow") == "POST")
        }
    }

    @Test func refusesMalformedBodies() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let cases: [(String, String)] = [
                ("not json", "JSON object"),
                ("[1,2]", "JSON object"),
                (#"{"token":"x.y.z"}"#, "kakao_token"),
                (#"{"kakao_token":"abc"}"#, "`token`"),
                (#"{"kakao_token":"abc","token":7}"#, "`token`"),
                (#"{"kakao_token":null,"token":"x.y.z"}"#, "kakao_token"),
            ]
            for (body, field) in cases {
                let reply = try await world.post("/v1/login-complete", headers: Self.bearer, body: body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.code == "invalid_request")
                #expect(reply.json?["detail"]?.stringValue?.contains(field) == true, "\(reply.text)")
            }
            #expect(world.kakao.calls == 0)
        }
    }

    @Test func refusesBodiesOver64KiB() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let padding = String(repeating: "a", count: 65 * 1024)
            let reply = try await world.post("/v1/login-complete", headers: Self.bearer, body: Self.body(kakao: padding, token: "x"))
            #expect(reply.status == 413)
            #expect(reply.code == "payload_too_large")
        }
    }

    @Test func refusesAnInvalidIDTokenBeforeAskingKakao() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let kakao = world.validToken()
            let expired = try world.keys.signIDToken(payload: SecureTokenKeys.idTokenPayload(
                projectID: world.projectID, uid: "kakao:1234567890", now: Int64(Date().timeIntervalSince1970) - 7200
            ))
            let reply = try await world.post("/v1/login-complete", headers: Self.bearer, body: Self.body(kakao: kakao, token: expired))
            #expect(reply.status == 401)
            #expect(reply.code == "invalid_id_token")
            #expect(reply.json?["detail"]?.stringValue?.contains("expired") == true)
            #expect(world.kakao.calls == 0)
        }
    }

    @Test func refusesTokensOfDifferentUsers() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let kakao = world.validToken(id: 1_234_567_890)
            let token = try Self.idToken(world, uid: "kakao:999")
            let reply = try await world.post("/v1/login-complete", headers: Self.bearer, body: Self.body(kakao: kakao, token: token))
            #expect(reply.status == 401)
            #expect(reply.code == "token_mismatch")
            #expect(reply.isProblem)
        }
    }

    @Test func refusesAnInvalidKakaoToken() async throws {
        try await RouterWorld.with(.init(hook: true)) { world in
            let kakao = world.validToken()
            world.kakao.expire(kakao)
            let token = try Self.idToken(world, uid: "kakao:1234567890")
            let reply = try await world.post("/v1/login-complete", headers: Self.bearer, body: Self.body(kakao: kakao, token: token))
            #expect(reply.status == 401)
            #expect(reply.code == "invalid_kakao_token")
        }
    }
}
