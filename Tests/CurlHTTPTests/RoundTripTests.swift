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
