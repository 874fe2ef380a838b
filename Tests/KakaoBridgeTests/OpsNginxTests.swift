import BridgeJSON
import BridgeSupport
import Foundation
import StandIns
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// The shipped nginx site (deploy/nginx/kakao-bridge.conf) in front of the real service, with a certificate made on
/// the spot. Runs when NGINX_TEST=1 (scripts/nginx-test.sh installs nginx and sets it).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["NGINX_TEST"] == "1", "set NGINX_TEST=1 (scripts/nginx-test.sh)"))
struct OpsNginxTests {
    @Test func theFlowWorksThroughNginxAndNothingLeaks() async throws {
        var options = TestWorld.Options()
        // nginx connects from 127.0.0.2 (proxy_bind below); only that address is a trusted proxy.
        options.configure = { $0.server.trustedProxies = [CIDR("127.0.0.2/32")!] }
        options.unlink = true
        try await TestWorld.with(options) { world in
            let nginx = try await Nginx.start(bridgePort: world.bridge.port)
            defer { nginx.stop() }
            let token = world.validToken(email: "nginx.person@example.com")

            // The flow, with a forged X-Forwarded-For that nginx must replace.
            let exchanged = try Curl.run(
                nginx.https + "/v1/token-exchange",
                ["-H", "Authorization: Bearer \(token)", "-H", "X-Forwarded-For: 6.6.6.6"]
            )
            #expect(exchanged.status == 200, "token exchange through nginx: \(exchanged.body)")
            #expect(exchanged.body.contains(#""uid":"kakao:1234567890""#))
            let legacy = try Curl.run(nginx.https + "/v1/kakao/" + token, ["-H", "X-Forwarded-For: 6.6.6.6"])
            #expect(legacy.status == 200, "legacy route through nginx: \(legacy.body)")
            let legacyBad = try Curl.run(nginx.https + "/v1/kakao/" + token + "x")
            #expect(legacyBad.status == 401)

            // The service logged the real client (the address curl connected to nginx from), not the forged one.
            let requestID = try #require(exchanged.header("x-request-id"))
            let line = try #require(OpsLog.accessLine(world.bridge.logs.lines, requestID: requestID))
            #expect(line["client"] as? String == "127.0.0.1")
            #expect(line["route"] as? String == "/v1/token-exchange")

            // Straight to the service (not a trusted proxy), X-Forwarded-For is ignored.
            let direct = try Curl.run(
                world.bridge.baseURL + "/healthz", ["-H", "X-Forwarded-For: 6.6.6.6", "-H", "X-Request-ID: direct-spoof-1"]
            )
            #expect(direct.status == 200)
            let directLine = try #require(OpsLog.accessLine(world.bridge.logs.lines, requestID: "direct-spoof-1"))
            #expect(directLine["client"] as? String == "127.0.0.1")
            #expect(OpsLog.accessLines(world.bridge.logs.lines).allSatisfy { $0["client"] as? String != "6.6.6.6" })

            // /metrics and the hook: only from the allowed network (127.0.0.2 in this test).
            #expect(try Curl.run(nginx.https + "/metrics").status == 403)
            #expect(try Curl.run(nginx.https + "/v1/login-complete", ["-X", "POST", "-d", "{}"]).status == 403)
            // /readyz names the version and commit: internal like /metrics; /healthz stays open.
            let readyOutside = try Curl.run(nginx.https + "/readyz")
            #expect(readyOutside.status == 403)
            Self.expectProblem(readyOutside, 403, "forbidden")
            #expect(!readyOutside.body.contains("commit"))
            // From inside, the service's own answer (503 until Google's certificates are in: the hook is on here).
            let readyInside = try Curl.run(nginx.https + "/readyz", ["--interface", "127.0.0.2"])
            #expect(readyInside.body.contains("commit") || readyInside.body.contains(#""code":"not_ready""#), "\(readyInside.body)")
            #expect(try Curl.run(nginx.https + "/healthz").status == 200)
            let allowed = try Curl.run(nginx.https + "/metrics", ["--interface", "127.0.0.2"])
            #expect(allowed.status == 200)
            #expect(allowed.body.contains("kakao_bridge_requests_total"))
            // Kakao's webhook comes from outside and gets through; the revoke endpoint is internal like the hook.
            let unlink = try Curl.run(
                nginx.https + "/v1/kakao/unlink?app_id=\(TestWorld.appID)&user_id=1234567890&referrer_type=UNLINK_FROM_APPS",
                ["-H", "Authorization: KakaoAK " + TestWorld.adminKey]
            )
            #expect(unlink.status == 200, "unlink webhook through nginx: \(unlink.body)")
            #expect(world.backend.unlinkNotices.count == 1)
            #expect(try Curl.run(nginx.https + "/v1/users/revoke", ["-X", "POST", "-d", "{}"]).status == 403)
            // Bodies over 64 KiB stop at nginx.
            let big = String(repeating: "a", count: 70 * 1024)
            Self.expectProblem(try Curl.run(nginx.https + "/v1/token-exchange", ["-X", "POST", "-d", big]), 413, "payload_too_large")

            // Neither nginx's logs nor the service's hold the token (or the email).
            let nginxLogs = nginx.logs()
            #expect(nginxLogs.contains("/v1/kakao/{access_token}"), "nginx access log: \(nginxLogs.prefix(2000))")
            #expect(nginxLogs.contains(#""client":"127.0.0.1""#))
            for secret in [token, token + "x", "nginx.person@example.com"] {
                #expect(!nginxLogs.contains(secret), "nginx's log holds a secret")
                #expect(world.bridge.logs.lines.allSatisfy { !$0.contains(secret) }, "the service's log holds a secret")
            }
        }
    }

    /// Security issue 27: `location = /metrics` was sidestepped with `/metrics/` (and the hook with
    /// `/v1/login-complete/`), which fell through to `location /` and reached the service, whose router took it for the
    /// route. Every other spelling of a guarded path is refused from outside, and the service answers 404 to the
    /// spellings nginx lets through from inside.
    @Test func noSpellingOfAGuardedPathGetsPastNginx() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.server.trustedProxies = [CIDR("127.0.0.2/32")!] }
        options.hook = true
        try await TestWorld.with(options) { world in
            let nginx = try await Nginx.start(bridgePort: world.bridge.port)
            defer { nginx.stop() }
            let metrics = [
                "/metrics/", "//metrics", "/metrics?x", "/%6detrics", "/%6Detrics/", "/metrics;", "/metrics;x", "/./metrics",
                "/x/../metrics", "/metrics/.", "/metrics%2F", "/v1/kakao/../../metrics", "/v1/kakao/..%2F..%2Fmetrics",
            ]
            for path in metrics {
                // As sent: curl must not clean the path up itself.
                let reply = try Curl.run(nginx.https + path, ["--path-as-is"])
                #expect(reply.status == 403, "GET \(path) from outside: \(reply.status) \(reply.body.prefix(200))")
                #expect(!reply.body.contains("kakao_bridge_requests_total"), "GET \(path) from outside served the metrics")
            }
            for path in ["/readyz/", "//readyz", "/%72eadyz", "/readyz;", "/./readyz"] {
                let reply = try Curl.run(nginx.https + path, ["--path-as-is"])
                #expect(reply.status == 403, "GET \(path) from outside: \(reply.status) \(reply.body.prefix(200))")
            }
            let hook = #"{"kakao_token":"x","token":"y"}"#
            let guardedPaths = [
                "/v1/login-complete/", "//v1/login-complete", "/v1/login-complete;", "/v1//login-complete", "/v1/./login-complete",
                "/v1/%6cogin-complete", "/v1/users/revoke/", "//v1/users/revoke", "/v1/users//revoke", "/v1/users/revoke;",
            ]
            for path in guardedPaths {
                let reply = try Curl.run(
                    nginx.https + path,
                    ["--path-as-is", "-X", "POST", "-H", "Authorization: Bearer " + TestWorld.hookSecret, "-d", hook]
                )
                #expect(reply.status == 403, "POST \(path) from outside: \(reply.status) \(reply.body.prefix(200))")
            }
            // From the allowed network nginx passes the path on as sent; the service does not take it for the route.
            for path in ["/metrics/", "//metrics", "/metrics/.", "/%6detrics", "/x/../metrics"] {
                let reply = try Curl.run(nginx.https + path, ["--path-as-is", "--interface", "127.0.0.2"])
                #expect(reply.status == 404, "GET \(path) from inside: \(reply.status) \(reply.body.prefix(200))")
                #expect(reply.body.contains(#""code":"not_found""#))
            }
            let inside = try Curl.run(nginx.https + "/metrics?x", ["--interface", "127.0.0.2"])
            #expect(inside.status == 200 && inside.body.contains("kakao_bridge_requests_total"))
            // The legacy route still works for a real token, and a trailing slash is not the route.
            let token = world.validToken()
            #expect(try Curl.run(nginx.https + "/v1/kakao/" + token).status == 200)
            #expect(try Curl.run(nginx.https + "/v1/kakao/" + token + "/", ["--path-as-is"]).status == 404)
            #expect(try Curl.run(nginx.https + "/v1/token-exchange/", ["--path-as-is", "-H", "Authorization: Bearer " + token]).status == 404)
            #expect(!nginx.logs().contains(token), "nginx's log holds a token")
        }
    }

    /// Issue 41: a query-string token is refused by nginx itself, so an upstream failure never writes it to nginx's
    /// error log; nginx's own errors (403, 413, 502, 504, plain http) are problem documents, never its HTML pages.
    /// No service here: nginx's upstream is first a closed port (502), then one that never answers (504).
    @Test func nginxsOwnErrorsAreProblemsAndAQueryTokenNeverReachesItsLogs() async throws {
        let upstreamPort = try Nginx.freePort()
        let nginx = try await Nginx.start(
            bridgePort: upstreamPort, replacing: [("proxy_read_timeout 30s;", "proxy_read_timeout 1s;")], healthy: false
        )
        defer { nginx.stop() }
        let secret = "QueryTokenNeverLogged0123456789"
        let queries = [
            "/v1/token-exchange?access_token=" + secret, "/v1/token-exchange?token=" + secret, "/?kakao_token=" + secret,
            "/v1/kakao/abc.html?x=1&Access_Token=" + secret, "/v1/kakao/unlink?%61ccess%5Ftoken=" + secret,
            "/metrics?token=" + secret, "/v1/token-exchange?+token+=" + secret,
        ]
        for path in queries {
            let reply = try Curl.run(nginx.https + path, ["--path-as-is"])
            Self.expectProblem(reply, 400, "invalid_request")
            #expect(reply.body.contains("query string"), "\(path): \(reply.body)")
        }
        // Other names are not tokens: they reach the (closed) upstream.
        for path in ["/healthz", "/v1/token-exchange?tokens=1", "/v1/token-exchange?my_token=1"] {
            Self.expectProblem(try Curl.run(nginx.https + path), 502, "upstream_unavailable")
        }
        Self.expectProblem(try Curl.run(nginx.https + "/metrics"), 403, "forbidden")
        Self.expectProblem(try Curl.run(nginx.https + "/readyz"), 403, "forbidden")
        Self.expectProblem(try Curl.run(nginx.https + "/v1/users/revoke", ["-X", "POST", "-d", "{}"]), 403, "forbidden")
        Self.expectProblem(try Curl.run(nginx.http + "/v1/kakao/" + secret), 403, "forbidden")
        let big = String(repeating: "a", count: 70 * 1024)
        Self.expectProblem(try Curl.run(nginx.https + "/v1/token-exchange", ["-X", "POST", "-d", big]), 413, "payload_too_large")

        // An upstream that accepts and never answers.
        let silent = try SilentListener(port: upstreamPort)
        defer { silent.close() }
        Self.expectProblem(try Curl.run(nginx.https + "/healthz"), 504, "upstream_timeout")
        Self.expectProblem(try Curl.run(nginx.https + "/v1/token-exchange?token=" + secret), 400, "invalid_request")

        let logs = nginx.logs()
        #expect(logs.contains("connect() failed"), "the upstream failures are in nginx's error log")
        #expect(!logs.contains(secret), "nginx's log holds a query-string token")
    }

    /// Issue 41: Kakao's security-event webhook has a location of its own, with no limit_req (like the unlink webhook),
    /// and it and the nonce route are named in the access log.
    @Test func theSecurityEventWebhookIsNotRateLimitedAndEveryRouteIsNamed() async throws {
        try await TestWorld.with(TestWorld.Options()) { world in
            // A budget of three requests, so that a limit shows at once.
            let nginx = try await Nginx.start(
                bridgePort: world.bridge.port, replacing: [("rate=10r/s", "rate=1r/m"), ("burst=600", "burst=2")]
            )
            defer { nginx.stop() }
            for _ in 0..<5 {
                let event = try Curl.run(
                    nginx.https + "/v1/kakao/events", ["-X", "POST", "-H", "Content-Type: application/secevent+jwt", "-d", "x.y.z"]
                )
                #expect(event.status != 429 && event.status != 0, "security event: \(event.status) \(event.body)")
            }
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try Curl.run(nginx.https + "/v1/kakao/nonce").status) }
            #expect(statuses.contains(429), "the app routes keep their limit: \(statuses)")
            let limited = try Curl.run(nginx.https + "/v1/kakao/nonce")
            Self.expectProblem(limited, 429, "rate_limited")
            #expect(limited.header("retry-after") == "1")
            let logs = nginx.logs()
            #expect(logs.contains(#""route":"/v1/kakao/events""#), "nginx access log: \(logs.prefix(2000))")
            #expect(logs.contains(#""route":"/v1/kakao/nonce""#))
            #expect(!logs.contains(#""route":"/v1/kakao/{access_token}""#))
        }
    }

    /// The site's two-instance form (its commented second `server`): a request that reached an instance which then failed
    /// is sent on to the other one only where running it twice is harmless. The token exchange (step 6 completes a login
    /// at the backend) and the hook get nginx's 502 instead, and the second instance never sees them. Both instances
    /// take the request and hang up without an answer, so whichever nginx picks first, a retry shows as a second call.
    @Test func theTokenExchangeAndTheHookAreNeverSentToASecondInstance() async throws {
        let first = try FaultServer { _, _ in .hangUp }
        defer { first.stop() }
        let second = try FaultServer { _, _ in .hangUp }
        defer { second.stop() }
        // max_fails=0: a failed instance stays in the rotation, so every request here has two instances to go to.
        let nginx = try await Nginx.start(
            bridgePort: first.port,
            replacing: [
                ("server 127.0.0.1:\(first.port);", "server 127.0.0.1:\(first.port) max_fails=0;"),
                ("# server 127.0.0.1:8081;", "server 127.0.0.1:\(second.port) max_fails=0;"),
            ],
            healthy: false
        )
        defer { nginx.stop() }
        func calls(_ path: String) -> Int { first.calls(path) + second.calls(path) }

        // A route that may run twice is retried on the other instance: both instances are in the upstream.
        let nonce = try Curl.run(nginx.https + "/v1/kakao/nonce")
        Self.expectProblem(nonce, 502, "upstream_unavailable")
        #expect(calls("/v1/kakao/nonce") == 2, "a GET elsewhere was not retried: the test's upstream is not two instances")

        let exchange = try Curl.run(nginx.https + "/v1/token-exchange", ["-H", "Authorization: Bearer not-a-real-token"])
        Self.expectProblem(exchange, 502, "upstream_unavailable")
        #expect(calls("/v1/token-exchange") == 1, "the token exchange was sent to a second instance")

        let hook = try Curl.run(
            nginx.https + "/v1/login-complete",
            ["--interface", "127.0.0.2", "-X", "POST", "-H", "Authorization: Bearer " + TestWorld.hookSecret, "-d", "{}"]
        )
        Self.expectProblem(hook, 502, "upstream_unavailable")
        #expect(calls("/v1/login-complete") == 1, "the hook was sent to a second instance")
    }

    /// The per-client limit (`limit_req`, keyed on the client's address): the app's routes share one budget per client,
    /// so one client's burst ends in 429 while another client still gets through. The hook and the revoke endpoint (your
    /// backend, a few addresses for all users) and Kakao's unlink webhook (Kakao's servers, likewise) are never limited.
    /// The legacy route and Kakao's security events are checked in the test above.
    @Test func theAppsRoutesAreLimitedPerClientAndTheBackendsAndKakaosCallsAreNot() async throws {
        var options = TestWorld.Options()
        options.configure = { $0.server.trustedProxies = [CIDR("127.0.0.2/32")!] }
        options.hook = true
        options.unlink = true
        try await TestWorld.with(options) { world in
            // A budget of three requests, so that a limit shows at once.
            let nginx = try await Nginx.start(
                bridgePort: world.bridge.port, replacing: [("rate=10r/s", "rate=1r/m"), ("burst=600", "burst=2")]
            )
            defer { nginx.stop() }
            // Each client its own loopback address (nginx's start probes as 127.0.0.1); 127.0.0.2 is the allowed network.
            func statuses(_ path: String, from address: String, _ arguments: [String] = []) throws -> [Int] {
                try (0..<5).map { _ in try Curl.run(nginx.https + path, ["--interface", address] + arguments).status }
            }

            let rest = try statuses("/healthz", from: "127.0.0.3")
            #expect(rest.contains(429), "location / is not limited: \(rest)")
            let exchange = try statuses("/v1/token-exchange", from: "127.0.0.4")
            #expect(exchange.contains(429), "the token exchange is not limited: \(exchange)")
            // Another client's budget is its own: its first request after those bursts gets through.
            let other = try Curl.run(nginx.https + "/healthz", ["--interface", "127.0.0.5"])
            #expect(other.status == 200, "a client was limited by another's requests: \(other.status)")

            let unlinkPath = "/v1/kakao/unlink?app_id=\(TestWorld.appID)&user_id=1&referrer_type=UNLINK_FROM_APPS"
            let unlink = try statuses(unlinkPath, from: "127.0.0.6")
            #expect(!unlink.contains(429) && !unlink.contains(0), "Kakao's unlink webhook: \(unlink)")
            let secret = ["-X", "POST", "-H", "Authorization: Bearer " + TestWorld.hookSecret, "-d", "{}"]
            let hook = try statuses("/v1/login-complete", from: "127.0.0.2", secret)
            #expect(!hook.contains(429) && !hook.contains(0), "the hook: \(hook)")
            let revoke = try statuses("/v1/users/revoke", from: "127.0.0.2", secret)
            #expect(!revoke.contains(429) && !revoke.contains(0), "the revoke endpoint: \(revoke)")
        }
    }

    static func expectProblem(_ reply: Curl.Result, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(reply.status) \(reply.body.prefix(300))", sourceLocation: sourceLocation)
        #expect(reply.header("content-type") == "application/problem+json", "\(reply.headers)", sourceLocation: sourceLocation)
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.body.utf8))) as? [String: Any]
        #expect(object?["code"] as? String == code, "\(reply.body.prefix(300))", sourceLocation: sourceLocation)
        #expect(object?["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect(object?["type"] as? String == "urn:kakao-bridge:problem:" + code, sourceLocation: sourceLocation)
        #expect(object?["title"] is String && object?["detail"] is String, sourceLocation: sourceLocation)
        #expect(reply.header("x-request-id").map { !$0.isEmpty } == true, sourceLocation: sourceLocation)
    }
}

/// A listening socket that never accepts: the kernel completes the handshake, and nothing ever answers.
final class SilentListener: Sendable {
    let descriptor: Int32

    init(port: Int) throws {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HarnessError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard bound, listen(socket, 16) == 0 else {
            Foundation.close(socket)
            throw HarnessError("cannot listen on 127.0.0.1:\(port)")
        }
        descriptor = socket
    }

    func close() { _ = Foundation.close(descriptor) }
}

/// nginx with the shipped site, rewritten only where a test must differ: ports, certificate, log and temp paths, the
/// allowed network, and the source address it connects to the service from.
final class Nginx: Sendable {
    let directory: URL
    let httpPort: Int
    let httpsPort: Int
    private let process: Process

    var https: String { "https://127.0.0.1:\(httpsPort)" }
    var http: String { "http://127.0.0.1:\(httpPort)" }

    private init(directory: URL, httpPort: Int, httpsPort: Int, process: Process) {
        self.directory = directory
        self.httpPort = httpPort
        self.httpsPort = httpsPort
        self.process = process
    }

    static var siteFile: URL {
        // Tests/KakaoBridgeTests/OpsNginxTests.swift -> the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("deploy/nginx/kakao-bridge.conf")
    }

    /// `replacing`: more rewrites of the site for one test. `healthy`: wait for `/healthz` to answer 200 (else for any
    /// answer: the upstream may be down on purpose).
    static func start(bridgePort: Int, replacing extra: [(String, String)] = [], healthy: Bool = true) async throws -> Nginx {
        let directory = try OpsFiles.temporaryDirectory()
        let path = directory.path
        try Shell.run("/usr/bin/openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-keyout", path + "/tls.key", "-out", path + "/tls.crt",
        ])
        let httpPort = try freePort(), httpsPort = try freePort()
        var site = try String(contentsOf: siteFile, encoding: .utf8)
        let replacements: [(String, String)] = [
            ("    127.0.0.1/32   1;\n    ::1/128        1;\n    10.0.0.0/8     1;\n", "    127.0.0.2/32   1;\n"),
            ("server 127.0.0.1:8080;", "server 127.0.0.1:\(bridgePort);"),
            ("    listen 80;\n    listen [::]:80;\n", "    listen 127.0.0.1:\(httpPort);\n"),
            ("    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n", "    listen 127.0.0.1:\(httpsPort) ssl http2;\n"),
            ("/etc/ssl/certs/kakao-bridge.crt", path + "/tls.crt"),
            ("/etc/ssl/private/kakao-bridge.key", path + "/tls.key"),
            ("/var/log/nginx/", path + "/"),
            ("    proxy_http_version 1.1;\n", "    proxy_http_version 1.1;\n    proxy_bind 127.0.0.2;\n"),
        ] + extra
        for (from, to) in replacements {
            guard site.contains(from) else { throw HarnessError("the shipped nginx site no longer contains \(from)") }
            site = site.replacingOccurrences(of: from, with: to)
        }
        try site.write(toFile: path + "/site.conf", atomically: true, encoding: .utf8)
        let main = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(path)/nginx.pid;
            error_log \(path)/main-error.log warn;
            events { worker_connections 256; }
            http {
                client_body_temp_path \(path)/client_body;
                proxy_temp_path \(path)/proxy;
                fastcgi_temp_path \(path)/fastcgi;
                uwsgi_temp_path \(path)/uwsgi;
                scgi_temp_path \(path)/scgi;
                access_log off;
                include \(path)/site.conf;
            }
            """
        try main.write(toFile: path + "/nginx.conf", atomically: true, encoding: .utf8)
        let nginx = try Shell.which("nginx")
        try Shell.run(nginx, ["-t", "-p", path, "-c", path + "/nginx.conf"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", path, "-c", path + "/nginx.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let started = Nginx(directory: directory, httpPort: httpPort, httpsPort: httpsPort, process: process)
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        func answered() -> Bool {
            let status = (try? Curl.run(started.https + "/healthz"))?.status ?? 0
            return healthy ? status == 200 : status != 0
        }
        while !answered() {
            guard ContinuousClock.now < deadline, process.isRunning else {
                started.stop()
                throw HarnessError("nginx did not start: \(started.logs())")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return started
    }

    func logs() -> String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".log") }.sorted()
            .compactMap { try? String(contentsOfFile: directory.path + "/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
    }

    func stop() {
        if process.isRunning {
            // SIGKILL: a child of the test process inherits a signal mask that blocks SIGTERM, and nginx without a
            // master process never unblocks it.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HarnessError("socket() failed") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw HarnessError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// The curl command line (TLS verification off: the certificate is made on the spot), for requests from a chosen
/// source address.
enum Curl {
    struct Result {
        var status: Int
        var headers: [String: String]
        var body: String
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    static func run(_ url: String, _ arguments: [String] = []) throws -> Result {
        let output = try Shell.run(
            "/usr/bin/curl", ["-sk", "-i", "--max-time", "10"] + arguments + [url]
        )
        let parts = output.components(separatedBy: "\r\n\r\n")
        var headerBlock = parts.first ?? ""
        var body = parts.dropFirst().joined(separator: "\r\n\r\n")
        // "HTTP/1.1 100 Continue" comes before the real answer for large bodies.
        while headerBlock.hasPrefix("HTTP/1.1 100"), let next = body.components(separatedBy: "\r\n\r\n").first {
            headerBlock = next
            body = body.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
        }
        let lines = headerBlock.components(separatedBy: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Result(status: status, headers: headers, body: body)
    }
}
