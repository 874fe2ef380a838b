import BridgeJSON
import Foundation
import Logging
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Issue 44, "why requests fail" (docs/operations.md#reading-the-logs): the problem's code in the access line and in
/// `kakao_bridge_problems_total`, each upstream's wall time, and log values with their JSON types in JSON and in text.
@Suite struct OpsWhyRequestsFailTests {
    /// The value of one series of `/metrics`, or 0 when it is not there yet.
    static func value(of series: String, in text: String) -> Double { MetricsText.value(of: series, in: text) }

    @Test func theAccessLineCarriesTheProblemCodeAndTheCounterCountsEveryProblem() async throws {
        try await RouterWorld.with { world in
            let mismatch = #"kakao_bridge_problems_total{route="/v1/token-exchange",code="kakao_app_mismatch"}"#
            let unmatched = #"kakao_bridge_problems_total{route="unmatched",code="not_found"}"#
            let before = try await world.get("/metrics").text

            let refused = try await world.get(
                "/v1/token-exchange", headers: [("Authorization", "Bearer " + world.otherAppToken()), ("X-Request-ID", "code-1")]
            )
            #expect(refused.code == "kakao_app_mismatch")
            _ = try await world.get("/v1/token-exchange", headers: [("Authorization", "Bearer " + world.otherAppToken())])
            #expect(try await world.get("/no/such/route", headers: [("X-Request-ID", "code-2")]).status == 404)
            #expect(try await world.exchange(world.validToken()).status == 200)

            let line = try #require(OpsLog.accessLine(world.logs.lines, requestID: "code-1"))
            #expect(line["code"] as? String == "kakao_app_mismatch")
            #expect(line["status"] as? Int == 401)
            #expect(OpsLog.accessLine(world.logs.lines, requestID: "code-2")?["code"] as? String == "not_found")
            // A request that did not fail has no code.
            let succeeded = OpsLog.accessLines(world.logs.lines).filter { $0["status"] as? Int == 200 }
            #expect(!succeeded.isEmpty)
            #expect(succeeded.allSatisfy { $0["code"] == nil })

            let after = try await world.get("/metrics").text
            // At least: the registry is the process's, and other tests may refuse such tokens meanwhile.
            #expect(Self.value(of: mismatch, in: after) - Self.value(of: mismatch, in: before) >= 2, "\(after)")
            #expect(Self.value(of: unmatched, in: after) - Self.value(of: unmatched, in: before) >= 1)
            #expect(after.contains("# HELP kakao_bridge_problems_total "))
            // Labels are route templates and codes: never a token or a path.
            #expect(!after.contains("/no/such/route"))
        }
    }

    /// Kakao's token info and profile are asked together: 300 ms each, side by side, are 300 ms of Kakao, not 600.
    @Test func upstreamTimeIsEachUpstreamsWallTimeNotTheSumOfItsParallelCalls() async throws {
        try await TestWorld.with { world in
            world.kakao.setFault(.delay(.milliseconds(300)), endpoint: .both)
            let reply = try await world.get(
                "/v1/token-exchange", headers: [("Authorization", "Bearer " + world.validToken()), ("X-Request-ID", "wall-1")]
            )
            #expect(reply.status == 200, "\(reply.text)")
            let line = try #require(OpsLog.accessLine(world.bridge.logs.lines, requestID: "wall-1"))
            let duration = try #require(line["duration_ms"] as? Double)
            let kakao = try #require((line["upstream_ms"] as? [String: Any])?["kakao"] as? Double)
            #expect(kakao >= 300, "\(line)")
            #expect(kakao <= duration, "upstream_ms.kakao \(kakao) > duration_ms \(duration): parallel calls added up")
        }
    }

    /// Numbers and booleans are JSON numbers and booleans, in the first line (`starting`) as in the access line.
    @Test func logValuesKeepTheirJSONTypes() async throws {
        try await RouterWorld.with { world in
            _ = try await world.get("/healthz", headers: [("X-Request-ID", "types-1")])
            let starting = try #require(world.logs.lines.lazy.compactMap(Self.object).first { $0["message"] as? String == "starting" })
            #expect(starting["check_revoked"] as? Bool == false, "\(starting)")
            #expect(starting["security_events"] is Bool, "\(starting)")
            let line = try #require(OpsLog.accessLine(world.logs.lines, requestID: "types-1"))
            #expect(line["status"] as? Int == 200)
            #expect(line["duration_ms"] is Double || line["duration_ms"] is Int)
        }
        let sink = LogSink.memory()
        let logger = Logger.bridge(level: "info", format: "json", sink: sink)
        logger.info("typed", metadata: [
            "count": LogValue.int(3), "ratio": LogValue.number(0.5), "on": LogValue.bool(true), "word": "3",
            "upstream_ms": .dictionary(["kakao": LogValue.number(12.5)]),
        ])
        let last = try #require(sink.lines.last)
        let object = try #require(Self.object(last))
        #expect(object["count"] as? Int == 3)
        #expect(object["ratio"] as? Double == 0.5)
        #expect(object["on"] as? Bool == true)
        #expect(object["word"] as? String == "3")
        #expect((object["upstream_ms"] as? [String: Any])?["kakao"] as? Double == 12.5)
    }

    /// `log.format: text`: `key=value` pairs a reader (and logfmt tools) can read, never Swift's dictionaries.
    @Test func theTextFormatPrintsKeyValuePairs() throws {
        let sink = LogSink.memory()
        let logger = Logger.bridge(level: "info", format: "text", sink: sink)
        logger.info("request", metadata: [
            "status": LogValue.int(502), "code": "kakao_unavailable", "cached": LogValue.bool(false),
            "client": "10.0.0.7", "reason": "no answer, twice", "keys": .array(["log.level", "server.port"]),
            "upstream_ms": .dictionary(["kakao": LogValue.number(12.5), "google_token": LogValue.int(30)]),
        ])
        let line = try #require(sink.lines.last)
        #expect(line.contains(" INFO kakao-bridge: request "), "\(line)")
        for pair in [
            "cached=false", "client=10.0.0.7", "code=kakao_unavailable", "keys=[log.level,server.port]", "status=502",
            #"reason="no answer, twice""#, "upstream_ms.google_token=30", "upstream_ms.kakao=12.5",
        ] {
            #expect(line.contains(" " + pair), "\(pair) not in: \(line)")
        }
        #expect(!line.contains("[\""), "\(line)")
        #expect(!line.contains("\": "), "a Swift dictionary in: \(line)")
    }

    /// PostgreSQL's pool logs each failed connection at info, about once a second, with the error as text: the watch
    /// keeps the cause and says it once, at warning.
    @Test func thePoolsConnectionFailuresAreSaidOnceWithTheirCause() throws {
        let wrongPassword = #"PSQLError(code: server, serverInfo: [sqlState: 28P01, file: auth.c, line: 326, "#
            + #"localizedSeverity: FATAL, message: password authentication failed for user "bridge", routine: auth_failed, severity: FATAL])"#
        let cause = StoreConnectionCause(poolError: wrongPassword)
        #expect(cause == .server(sqlState: "28P01", message: #"password authentication failed for user "bridge""#))
        #expect(StoreConnectionCause(poolError: "PSQLError(code: authMechanismRequiresPassword)") == .passwordMissing)
        #expect(StoreConnectionCause(poolError: "PSQLError(code: sslUnsupported)").description.hasPrefix("TLS"))
        #expect(StoreConnectionCause(
            poolError: "PSQLError(code: connectionError, underlying: NIOConnectionError(host: 127.0.0.1, port: 9, dnsAError: nil, "
                + "dnsAAAAError: nil, connectionErrors: [SingleConnectionFailure(target: [IPv4]127.0.0.1/127.0.0.1:9, "
                + "error: connection reset (error set): Connection refused (errno: 111))]))"
        ) == .refused)

        let sink = LogSink.memory()
        let watch = StoreConnectionWatch()
        let logger = watch.watching(Logger.bridge(level: "warning", format: "json", sink: sink), report: true)
        for _ in 0..<3 {
            logger.info("Connection creation failed", metadata: ["psql_connection_id": "1", "psql_error": "\(wrongPassword)"])
        }
        logger.info("an info line the configured level drops")
        logger.warning("a warning that passes")
        #expect(watch.latestCause == cause)
        let lines = sink.lines
        #expect(lines.count == 2, "\(lines)")
        let said = try #require(lines.first.flatMap(Self.object))
        #expect(said["level"] as? String == "warning")
        #expect((said["reason"] as? String)?.contains("28P01 password authentication failed") == true, "\(said)")
        #expect(lines.last?.contains("a warning that passes") == true)
    }

    static func object(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}
