import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import UpstreamFakes

/// Request ids (accepted when sane, replaced otherwise, echoed, logged, passed upstream), the access log line, and the
/// client address behind trusted proxies. The service's own rules run at the router's depth; passing the id to Kakao on
/// the wire, upstream timings in the access log and the socket peer behind `X-Forwarded-For` need the real server and
/// libcurl (the router test framework has no socket peer), so those two tests stay end-to-end.
@Suite struct OpsRequestTests {
    @Test func aSaneRequestIDIsReusedEchoedLoggedAndPassedUpstream() async throws {
        let recorder = try await HeaderRecorder.start()
        var options = TestWorld.Options()
        let recorderURL = recorder.server.baseURL
        options.configure = { $0.kakao.apiBaseURL = recorderURL }
        try await TestWorld.with(options) { world in
            let reply = try await world.get(
                "/v1/token-exchange", headers: [("Authorization", "Bearer some-kakao-token"), ("X-Request-ID", "edge-1.A_b-9")]
            )
            #expect(reply.code == "invalid_kakao_token")
            #expect(reply.isProblem)
            #expect(reply.header("x-request-id") == "edge-1.A_b-9")
            #expect(reply.json?["request_id"]?.stringValue == "edge-1.A_b-9")
            #expect(!recorder.requestIDs.isEmpty)
            #expect(recorder.requestIDs.allSatisfy { $0 == "edge-1.A_b-9" })

            let line = try #require(OpsLog.accessLine(world.bridge.logs.lines, requestID: "edge-1.A_b-9"))
            #expect(line["route"] as? String == "/v1/token-exchange")
            #expect(line["method"] as? String == "GET")
            #expect(line["status"] as? Int == 401)
            #expect(line["client"] as? String == "127.0.0.1")
            #expect(line["duration_ms"] is Double || line["duration_ms"] is Int)
            #expect((line["upstream_ms"] as? [String: Any])?["kakao"] != nil)
            #expect(line["time"] is String)
        }
        await recorder.server.stop()
    }

    @Test(arguments: ["", "has space", "semi;colon", String(repeating: "a", count: 129), "ünïcode"])
    func anInsaneRequestIDIsReplaced(_ incoming: String) async throws {
        try await RouterWorld.with { world in
            let reply = try await world.get("/healthz", headers: [("X-Request-ID", incoming)])
            let id = try #require(reply.header("x-request-id"))
            #expect(id != incoming)
            #expect(RequestIDs.sane(id) == id)
            let problem = try await world.get("/nope", headers: [("X-Request-ID", incoming)])
            #expect(problem.isProblem)
            #expect(problem.json?["request_id"]?.stringValue == problem.header("x-request-id"))
            #expect(problem.header("x-request-id") != incoming)
        }
    }

    @Test func theLegacyRouteIsLoggedByItsTemplate() async throws {
        try await RouterWorld.with { world in
            let token = world.validToken()
            _ = try await world.get("/v1/kakao/" + token, headers: [("X-Request-ID", "legacy-log-1")])
            let line = try #require(OpsLog.accessLine(world.logs.lines, requestID: "legacy-log-1"))
            #expect(line["route"] as? String == "/v1/kakao/{access_token}")
            #expect(line["status"] as? Int == 200)
            #expect(world.logs.lines.allSatisfy { !$0.contains(token) })
        }
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() async throws {
        var trusting = TestWorld.Options()
        trusting.configure = { $0.server.trustedProxies = [CIDR("127.0.0.0/8")!] }
        try await TestWorld.with(trusting) { world in
            _ = try await world.get("/healthz", headers: [("X-Forwarded-For", "198.51.100.7, 203.0.113.9"), ("X-Request-ID", "xff-1")])
            let line = try #require(OpsLog.accessLine(world.bridge.logs.lines, requestID: "xff-1"))
            #expect(line["client"] as? String == "203.0.113.9")
        }
        try await TestWorld.with { world in
            _ = try await world.get("/healthz", headers: [("X-Forwarded-For", "203.0.113.9"), ("X-Request-ID", "xff-2")])
            let line = try #require(OpsLog.accessLine(world.bridge.logs.lines, requestID: "xff-2"))
            #expect(line["client"] as? String == "127.0.0.1")
        }
    }

    @Test func theClientIsTheRightMostUntrustedHop() {
        let trusted = [CIDR("10.0.0.0/8")!, CIDR("::1")!]
        func client(_ peer: String, _ header: [String]) -> String {
            ClientAddress.clientAddress(socketPeer: peer, forwardedFor: header, trusted: trusted)
        }
        #expect(client("192.0.2.1", ["203.0.113.9"]) == "192.0.2.1")
        #expect(client("10.1.1.1", []) == "10.1.1.1")
        #expect(client("10.1.1.1", ["203.0.113.9"]) == "203.0.113.9")
        #expect(client("10.1.1.1", ["6.6.6.6, 203.0.113.9, 10.2.2.2"]) == "203.0.113.9")
        #expect(client("10.1.1.1", ["6.6.6.6", "203.0.113.9"]) == "203.0.113.9")
        #expect(client("10.1.1.1", ["10.3.3.3, 10.2.2.2"]) == "10.3.3.3")
        #expect(client("10.1.1.1", ["203.0.113.9, not-an-address"]) == "10.1.1.1")
        #expect(client("::1", ["[2001:db8::7]:443"]) == "2001:db8::7")
        #expect(client("::ffff:10.1.1.1", ["203.0.113.9:5555"]) == "203.0.113.9")
    }
}
