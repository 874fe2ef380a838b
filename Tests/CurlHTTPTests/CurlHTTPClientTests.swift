import CurlHTTP
import Testing

// Hummingbird also exports HTTPTypes' HTTPRequest/HTTPResponse, so the client's types are named in full.
typealias ClientRequest = CurlHTTP.HTTPRequest

/// The error a call fails with, or nil if it succeeded.
func failure(_ client: CurlHTTPClient, _ request: ClientRequest) async -> HTTPClientError? {
    do {
        _ = try await client.execute(request)
        return nil
    } catch {
        return error
    }
}

@Suite struct RoundTripTests {
    @Test func getReturnsBodyStatusAndHeaders() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let response = try await client.execute(ClientRequest(url: server.url("/hello")))
            #expect(response.status == 200)
            #expect(response.body == Array("hello".utf8))
            #expect(response.header("x-test-header") == "Yes")
            #expect(response.header("X-TEST-HEADER") == "Yes")
            #expect(response.header("content-type") == "text/plain")
            #expect(response.header("missing") == nil)
            #expect(response.headers.allSatisfy { $0.name == $0.name.lowercased() })
        }
    }

    @Test func postSendsBodyAndHeaders() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let payload = (0..<5000).map { UInt8(truncatingIfNeeded: $0) }
            let response = try await client.execute(ClientRequest(
                method: .post,
                url: server.url("/echo"),
                headers: [("X-Custom", "round trip"), ("Content-Type", "application/octet-stream")],
                body: payload
            ))
            #expect(response.status == 201)
            #expect(response.body == payload)
            #expect(response.header("x-echo") == "round trip")
            #expect(response.header("x-method") == "POST")
        }
    }

    @Test func postWithoutBodySendsEmptyBody() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let response = try await client.execute(ClientRequest(method: .post, url: server.url("/echo")))
            #expect(response.status == 201)
            #expect(response.body.isEmpty)
        }
    }

    @Test(arguments: [404, 500, 503])
    func errorStatusesArePassedThrough(code: Int) async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let response = try await client.execute(ClientRequest(url: server.url("/status/\(code)")))
            #expect(response.status == code)
            #expect(response.body == Array("status \(code)".utf8))
        }
    }

    @Test func redirectIsReturnedNotFollowed() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let response = try await client.execute(ClientRequest(url: server.url("/redirect")))
            #expect(response.status == 302)
            #expect(response.header("location") == "/hello")
            #expect(server.log.requestCount == 1)
        }
    }
}

@Suite struct FailureTests {
    @Test func deadlineExceededIsTimeout() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let error = await failure(client, ClientRequest(url: server.url("/slow"), timeout: .milliseconds(500)))
            let elapsed = ContinuousClock.now - started
            #expect(error?.kind == .timeout)
            #expect(elapsed >= .milliseconds(450))
            #expect(elapsed < .seconds(2))
        }
    }

    @Test func refusedConnectionIsConnect() async {
        let client = CurlHTTPClient()
        defer { client.shutdown() }
        // Port 1 is privileged and unused on the test machines, so the connect is refused at once.
        let error = await failure(client, ClientRequest(url: "http://127.0.0.1:1/", timeout: .seconds(2)))
        #expect(error?.kind == .connect)
        #expect(error?.call == "curl_multi_info_read")
        #expect(error?.message.isEmpty == false)
    }

    @Test func oversizedStreamedReplyIsCutOff() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(maxResponseBytes: 1 << 20)
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let error = await failure(client, ClientRequest(url: server.url("/big"), timeout: .seconds(10)))
            #expect(error?.kind == .responseTooLarge)
            // The whole body needs 80 chunk intervals (2 s); the cap is reached after about 16 (0.4 s).
            #expect(ContinuousClock.now - started < bigChunkInterval * 50)
            #expect(server.log.completedBigStreams == 0)
        }
    }

    @Test func oversizedDeclaredReplyIsRefused() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(maxResponseBytes: 1 << 20)
            defer { client.shutdown() }
            let error = await failure(client, ClientRequest(url: server.url("/big-declared")))
            #expect(error?.kind == .responseTooLarge)
        }
    }

    @Test func replyAtTheCapIsAccepted() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(maxResponseBytes: 5)
            defer { client.shutdown() }
            let response = try await client.execute(ClientRequest(url: server.url("/hello")))
            #expect(response.body.count == 5)
        }
    }

    @Test(arguments: ["ftp://127.0.0.1/file", "file:///etc/passwd", "gopher://127.0.0.1/"])
    func nonHTTPSchemesAreRefused(url: String) async {
        let client = CurlHTTPClient()
        defer { client.shutdown() }
        let error = await failure(client, ClientRequest(url: url))
        #expect(error?.kind == .protocolNotAllowed)
    }

    @Test func headerInjectionIsRefused() async {
        let client = CurlHTTPClient()
        defer { client.shutdown() }
        let error = await failure(client, ClientRequest(url: "http://127.0.0.1:1/", headers: [("X-A", "b\r\nX-Evil: 1")]))
        #expect(error?.kind == .invalidRequest)
        let badName = await failure(client, ClientRequest(url: "http://127.0.0.1:1/", headers: [("X A", "b")]))
        #expect(badName?.kind == .invalidRequest)
    }

    @Test func getWithBodyIsRefused() async {
        let client = CurlHTTPClient()
        defer { client.shutdown() }
        let error = await failure(client, ClientRequest(url: "http://127.0.0.1:1/", body: [1]))
        #expect(error?.kind == .invalidRequest)
    }

    @Test func malformedURLIsInvalidRequest() async {
        let client = CurlHTTPClient()
        defer { client.shutdown() }
        let error = await failure(client, ClientRequest(url: "http://[::1"))
        #expect(error?.kind == .invalidRequest)
    }
}

@Suite struct LifecycleTests {
    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let started = ContinuousClock.now
            let call = Task { await failure(client, ClientRequest(url: server.url("/slow"), timeout: .seconds(10))) }
            try await Task.sleep(for: .milliseconds(200))
            call.cancel()
            let error = await call.value
            #expect(error?.kind == .cancelled)
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }

    @Test func alreadyCancelledTaskFailsAtOnce() async {
        let client = CurlHTTPClient()
        defer { client.shutdown() }
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await failure(client, ClientRequest(url: "http://127.0.0.1:1/"))
        }
        #expect(await call.value?.kind == .cancelled)
    }

    @Test func shutdownFailsPendingAndLaterCalls() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            let pending = Task { await failure(client, ClientRequest(url: server.url("/slow"), timeout: .seconds(10))) }
            try await Task.sleep(for: .milliseconds(200))
            client.shutdown()
            #expect(await pending.value?.kind == .shutdown)
            let later = await failure(client, ClientRequest(url: server.url("/hello")))
            #expect(later?.kind == .shutdown)
        }
    }

    @Test func concurrentRequestsAllSucceed() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(maxConnectionsPerHost: 16)
            defer { client.shutdown() }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask { try await client.execute(ClientRequest(url: server.url("/hello"))).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 200)
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(server.log.requestCount == 200)
            #expect(server.log.connectionCount <= 16)
        }
    }

    /// Easy handles are pooled and never reset: nothing of one request (method, body, headers) may reach the next.
    @Test func reusedHandleCarriesNothingOver() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            let posted = try await client.execute(ClientRequest(
                method: .post, url: server.url("/echo"), headers: [("X-Custom", "first")], body: Array("payload".utf8)
            ))
            #expect(posted.status == 201)
            #expect(posted.header("x-echo") == "first")
            let fetched = try await client.execute(ClientRequest(url: server.url("/hello")))
            #expect(fetched.status == 200)
            #expect(fetched.body == Array("hello".utf8))
            let again = try await client.execute(ClientRequest(method: .post, url: server.url("/echo")))
            #expect(again.status == 201)
            #expect(again.body.isEmpty)
            #expect(again.header("x-echo") == "missing")
            #expect(server.log.connectionCount == 1)
        }
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient()
            defer { client.shutdown() }
            for _ in 0..<20 {
                let response = try await client.execute(ClientRequest(url: server.url("/hello")))
                #expect(response.status == 200)
            }
            #expect(server.log.requestCount == 20)
            #expect(server.log.connectionCount == 1)
        }
    }
}
