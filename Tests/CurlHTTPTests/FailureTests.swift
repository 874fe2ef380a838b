import CurlHTTP
import Testing

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
            // The whole body needs 80 chunk intervals (2 s); the cap is reached after about 16 (0.4 s). The bound is the
            // whole body's time, not 16 intervals: with every suite running at once on 2 cores, 1.8 s was seen.
            #expect(ContinuousClock.now - started < bigChunkInterval * 80)
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
