import CurlHTTP
import Testing

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
