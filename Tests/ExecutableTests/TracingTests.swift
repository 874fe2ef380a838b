import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import Hummingbird
import StandIns
import Upstreams
import Synchronization
import Testing
import EndToEndSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 32, tracing (docs/operations.md#tracing): a spawned `serve` (the tracer is bootstrapped once per process) with
/// `tracing.otlp_endpoint` at a stand-in OTLP/HTTP collector; one login with the caller's `traceparent`.
@Suite(.serialized) struct TracingTests {
    static let callerTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let callerSpanID = "00f067aa0ba902b7"

    @Test func aLoginIsOneTraceUnderTheCallersSpanWithAChildPerUpstreamCallAndNoSecret() async throws {
        var options = TestWorld.Options()
        options.backend = true
        try await TestWorld.with(options) { world in try await Self.withTracedBridge(world) { collector, bridge, port in
            let kakaoToken = world.validToken(email: "ryan@example.com")
            let reply = Reply(try await world.http.execute(CurlHTTP.HTTPRequest(
                method: .get, url: "http://127.0.0.1:\(port)/v1/token-exchange",
                headers: [
                    ("Authorization", "Bearer " + kakaoToken),
                    ("traceparent", "00-\(Self.callerTraceID)-\(Self.callerSpanID)-01"),
                ]
            )))
            #expect(reply.status == 200, "\(reply.text)")
            let idToken = try #require(reply.json?["firebase"]?["id_token"]?.stringValue)

            // SIGTERM: the service drains, then the exporter sends what it holds before the process exits.
            bridge.signal(SIGTERM)
            let deadline = ContinuousClock.now + .seconds(20)
            while bridge.exitStatus == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(bridge.exitStatus == 0, "\(bridge.output.suffix(2000))")
            await collector.server.stop()

            let spans = try collector.spans()
            print(OTLPSpan.tree(spans))
            let request = try #require(spans.first { $0.name == "GET /v1/token-exchange" }, "\(spans.map(\.name))")
            #expect(request.traceID == Self.callerTraceID)
            #expect(request.parentSpanID == Self.callerSpanID)
            #expect(request.kind == 2)
            #expect(request.attributes["http.route"] == "/v1/token-exchange")
            #expect(request.attributes["http.response.status_code"] == "200")
            let children = spans.filter { $0.parentSpanID == request.spanID }
            // Every other span is an upstream call of this request: nothing else happened in the process.
            #expect(children.count == spans.count - 1, "\(OTLPSpan.tree(spans))")
            #expect(Set(children.map(\.name)).isSuperset(of: ["kakao", "identity_toolkit", "backend"]), "\(children.map(\.name))")
            for child in children {
                #expect(child.traceID == Self.callerTraceID)
                #expect(child.kind == 3)
                #expect(child.attributes["server.address"] == "127.0.0.1")
                #expect(child.attributes["http.request.method"] != nil)
                #expect(child.attributes["http.response.status_code"] != nil, "\(child.name): \(child.attributes)")
            }

            // Each upstream was sent the trace: one `traceparent` per call, each naming the caller's trace and one of
            // the upstream spans.
            let sent = world.servers.all.flatMap(\.traceparents)
            #expect(sent.count == children.count, "\(sent)")
            for value in sent {
                let parts = value.split(separator: "-").map(String.init)
                #expect(parts.count == 4 && parts[1] == Self.callerTraceID, "\(value)")
                #expect(children.contains { $0.spanID == parts[safe: 2] }, "\(value)")
            }

            // No secret, email or URL query in any name or attribute of any span, or of the resource.
            let secrets = [kakaoToken, idToken, "ryan@example.com", TestWorld.apiKey, TestWorld.hookSecret]
            for text in collector.allStrings() {
                for secret in secrets { #expect(!text.contains(secret), "\(text)") }
                #expect(!text.contains("?"), "\(text)")
            }
        } }
    }

    /// Issue 44: with tracing on, every log line of a request carries its `trace_id` and `span_id` (the request's span),
    /// the feature's lines (the user sync's) as the edge's, a failed request's (with its `code`) as a good one's.
    @Test func everyLogLineOfATracedRequestCarriesItsTraceAndSpanIDs() async throws {
        var options = TestWorld.Options()
        options.backend = true
        try await TestWorld.with(options) { world in try await Self.withTracedBridge(world) { collector, bridge, port in
            let traceparent = ("traceparent", "00-\(Self.callerTraceID)-\(Self.callerSpanID)-01")
            for (id, token) in [("traced-ok", world.validToken(email: "traced@example.com")), ("traced-refused", "not-a-kakao-token")] {
                _ = try await world.http.execute(CurlHTTP.HTTPRequest(
                    method: .get, url: "http://127.0.0.1:\(port)/v1/token-exchange",
                    headers: [("Authorization", "Bearer " + token), traceparent, ("X-Request-ID", id)]
                ))
            }
            bridge.signal(SIGTERM)
            let deadline = ContinuousClock.now + .seconds(20)
            while bridge.exitStatus == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            await collector.server.stop()
            let requestSpans = try collector.spans().filter { $0.name == "GET /v1/token-exchange" }
            #expect(requestSpans.count == 2)

            let lines = bridge.output.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
            for id in ["traced-ok", "traced-refused"] {
                let own = lines.filter { $0["request_id"] as? String == id }
                #expect(own.count >= 2 || id == "traced-refused", "\(id): \(own)")
                #expect(own.contains { $0["message"] as? String == "request" }, "\(id): no access line")
                let spanIDs = Set(own.compactMap { $0["span_id"] as? String })
                for line in own {
                    #expect(line["trace_id"] as? String == Self.callerTraceID, "\(line)")
                    #expect((line["span_id"] as? String)?.count == 16, "\(line)")
                }
                // One span per request: the request's, never the caller's.
                #expect(spanIDs.count == 1, "\(id): \(spanIDs)")
                #expect(spanIDs.allSatisfy { span in requestSpans.contains { $0.spanID == span } }, "\(spanIDs)")
                #expect(!spanIDs.contains(Self.callerSpanID))
            }
            let refused = try #require(lines.first { $0["request_id"] as? String == "traced-refused" && $0["message"] as? String == "request" })
            #expect(refused["code"] as? String == "invalid_kakao_token", "\(refused)")
            #expect(!bridge.output.contains("traced@example.com"))
        } }
    }

    /// Without `tracing.otlp_endpoint` (the default) nothing is bootstrapped: no span, and no `traceparent` upstream.
    @Test func offByDefaultNothingIsSentUpstream() async throws {
        try await TestWorld.with { world in
            let reply = try await world.get(
                "/v1/token-exchange",
                headers: [("Authorization", "Bearer " + world.validToken()), ("traceparent", "00-\(Self.callerTraceID)-\(Self.callerSpanID)-01")]
            )
            #expect(reply.status == 200)
            #expect(world.servers.all.flatMap(\.traceparents).isEmpty)
        }
    }

    /// Only a well-formed version-00 `traceparent` is followed; anything else starts a new trace.
    @Test func onlyAWellFormedTraceparentIsFollowed() {
        #expect(W3CTraceParent.isValid("00-\(Self.callerTraceID)-\(Self.callerSpanID)-01"))
        #expect(W3CTraceParent.isValid("00-\(Self.callerTraceID)-\(Self.callerSpanID)-00"))
        for bad in [
            "", "garbage", "01-\(Self.callerTraceID)-\(Self.callerSpanID)-01",
            "00-\(Self.callerTraceID.uppercased())-\(Self.callerSpanID)-01",
            "00-00000000000000000000000000000000-\(Self.callerSpanID)-01",
            "00-\(Self.callerTraceID)-0000000000000000-01",
            "00-\(Self.callerTraceID)-\(Self.callerSpanID)-01-extra",
            "00-\(Self.callerTraceID)-\(Self.callerSpanID)_01",
            "00-\(Self.callerTraceID.dropLast())g-\(Self.callerSpanID)-01",
        ] {
            #expect(!W3CTraceParent.isValid(bad), "\(bad)")
        }
    }

    @Test func theEndpointMustBeAnHTTPURLAndTheServiceNameNotEmpty() throws {
        var config = BridgeConfig()
        config.tracing.otlpEndpoint = "otel-collector:4318"
        config.tracing.serviceName = " "
        let paths = ConfigValidation.issues(in: config).map(\.path)
        #expect(paths.contains("tracing.otlp_endpoint"))
        #expect(paths.contains("tracing.service_name"))
        config.tracing.otlpEndpoint = "http://otel-collector:4318"
        config.tracing.serviceName = "kakao-bridge"
        #expect(!ConfigValidation.issues(in: config).map(\.path).contains { $0.hasPrefix("tracing.") })
        #expect(BridgeConfig().tracing.otlpEndpoint.isEmpty)
    }

    /// A `kakao-bridge serve` whose traces go to a collector stand-in, for `body`; stopped and its files removed after.
    static func withTracedBridge(
        _ world: TestWorld, _ body: (OTLPCollectorStandIn, SpawnedBridge, Int) async throws -> Void
    ) async throws {
        let collector = try await OTLPCollectorStandIn.start()
        let directory = try OpsFiles.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configPath = directory.appendingPathComponent("bridge.yaml").path
        try OpsFiles.writePrivate(Self.yaml(world, collector: collector.server.baseURL), to: configPath)
        let bridge = try SpawnedBridge(
            arguments: ["serve", "--config", configPath], outputPath: directory.appendingPathComponent("out.log").path
        )
        defer { bridge.stop() }
        try await body(collector, bridge, try await bridge.waitForPort())
    }

    static func yaml(_ world: TestWorld, collector: String) -> String {
        let config = world.config
        return """
            server:
              host: 127.0.0.1
              port: 0
              shutdown_grace_seconds: 5
            kakao:
              app_id: \(config.kakao.appID)
              api_base_url: \(config.kakao.apiBaseURL)
            firebase:
              service_account_file: \(config.firebase.serviceAccountFile)
              identity_toolkit_url: \(config.firebase.identityToolkitURL)
              securetoken_certs_url: \(config.firebase.securetokenCertsURL)
              web_api_key: \(config.firebase.webAPIKey)
            backend:
              login_complete_url: \(config.backend.loginCompleteURL)
            hook:
              secret: \(TestWorld.hookSecret)
            upstream:
              timeout_ms: 5000
            log:
              level: info
              format: json
            tracing:
              otlp_endpoint: \(collector)
              service_name: kakao-bridge-test
            """
    }
}

/// A stand-in OpenTelemetry collector: OTLP/HTTP `POST /v1/traces` with protobuf bodies, kept as they came.
final class OTLPCollectorStandIn: Sendable {
    let server: StandInServer
    private let bodies: Bodies

    private init(server: StandInServer, bodies: Bodies) {
        self.server = server
        self.bodies = bodies
    }

    static func start() async throws -> OTLPCollectorStandIn {
        let bodies = Bodies()
        let router = Router()
        router.post("/v1/traces") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 8 << 20)
            bodies.append(Array(body.readableBytesView))
            // An empty ExportTraceServiceResponse: all accepted.
            return Response(status: .ok, headers: [.contentType: "application/x-protobuf"])
        }
        return OTLPCollectorStandIn(server: try await StandInServer.start(name: "otlp", router: router), bodies: bodies)
    }

    /// ExportTraceServiceRequest → resource_spans (1) → scope_spans (2) → spans (2).
    func spans() throws -> [OTLPSpan] {
        try bodies.all.flatMap { body in
            try ProtoFields(body).messages(1).flatMap { resourceSpans in
                try resourceSpans.messages(2).flatMap { scopeSpans in try scopeSpans.messages(2).map(OTLPSpan.init) }
            }
        }
    }

    /// Every string in every body (names, attribute keys and values, the resource): what must hold no secret.
    func allStrings() -> [String] {
        bodies.all.flatMap { ProtoFields.strings(in: $0) }
    }

    private final class Bodies: Sendable {
        private let received = Mutex<[[UInt8]]>([])
        func append(_ body: [UInt8]) { received.withLock { $0.append(body) } }
        var all: [[UInt8]] { received.withLock { $0 } }
    }
}

struct OTLPSpan {
    let traceID: String
    let spanID: String
    let parentSpanID: String
    let name: String
    let kind: UInt64
    let start: UInt64
    /// Values as text (integers in decimal).
    let attributes: [String: String]

    init(_ fields: ProtoFields) throws {
        traceID = fields.bytes(1).hex
        spanID = fields.bytes(2).hex
        parentSpanID = fields.bytes(4).hex
        name = fields.string(5)
        kind = fields.varint(6)
        start = fields.fixed64(7)
        var attributes: [String: String] = [:]
        for keyValue in try fields.messages(9) {
            let value = try keyValue.messages(2).first
            attributes[keyValue.string(1)] = value.map { $0.has(3) ? String(Int64(bitPattern: $0.varint(3))) : $0.string(1) }
        }
        self.attributes = attributes
    }

    /// The spans as an indented tree, parents first, children by start time.
    static func tree(_ spans: [OTLPSpan]) -> String {
        let ids = Set(spans.map(\.spanID))
        var lines: [String] = []
        func walk(_ span: OTLPSpan, _ depth: Int) {
            let status = span.attributes["http.response.status_code"].map { " → \($0)" } ?? ""
            lines.append(String(repeating: "  ", count: depth) + span.name + status)
            for child in spans.filter({ $0.parentSpanID == span.spanID }).sorted(by: { $0.start < $1.start }) {
                walk(child, depth + 1)
            }
        }
        for root in spans.filter({ !ids.contains($0.parentSpanID) }).sorted(by: { $0.start < $1.start }) {
            lines.append("(caller \(root.traceID)/\(root.parentSpanID.isEmpty ? "-" : root.parentSpanID))")
            walk(root, 1)
        }
        return lines.joined(separator: "\n")
    }
}

/// Just enough of the protobuf wire format to read OTLP: each field's number with its varint, fixed or bytes value.
struct ProtoFields {
    struct ReadError: Error {}
    private var fields: [(number: Int, varint: UInt64, bytes: ArraySlice<UInt8>)] = []

    init(_ bytes: some Collection<UInt8>) throws {
        let bytes = Array(bytes)
        var index = 0
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw ReadError() }
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard count >= 0, index + count <= bytes.count else { throw ReadError() }
            defer { index += count }
            return bytes[index..<index + count]
        }
        while index < bytes.count {
            let key = try varint()
            let number = Int(key >> 3)
            switch key & 7 {
            case 0: fields.append((number, try varint(), []))
            case 1: fields.append((number, Self.littleEndian(try take(8)), []))
            case 2: fields.append((number, 0, try take(Int(try varint()))))
            case 5: fields.append((number, Self.littleEndian(try take(4)), []))
            default: throw ReadError()
            }
        }
    }

    func has(_ number: Int) -> Bool { fields.contains { $0.number == number } }
    func varint(_ number: Int) -> UInt64 { fields.last { $0.number == number }?.varint ?? 0 }
    func fixed64(_ number: Int) -> UInt64 { varint(number) }
    func bytes(_ number: Int) -> ArraySlice<UInt8> { fields.last { $0.number == number }?.bytes ?? [] }
    func string(_ number: Int) -> String { String(decoding: bytes(number), as: UTF8.self) }
    func messages(_ number: Int) throws -> [ProtoFields] {
        try fields.filter { $0.number == number }.map { try ProtoFields($0.bytes) }
    }

    /// Every length-delimited value that reads as UTF-8 text, at any depth (nested messages are read as both).
    static func strings(in bytes: some Collection<UInt8>) -> [String] {
        guard let fields = try? ProtoFields(bytes) else { return [] }
        return fields.fields.flatMap { field -> [String] in
            guard !field.bytes.isEmpty else { return [] }
            var found: [String] = []
            if let text = String(validating: field.bytes, as: UTF8.self) { found.append(text) }
            return found + strings(in: field.bytes)
        }
    }

    private static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}

extension ArraySlice<UInt8> {
    var hex: String { map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined() }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
