import CurlHTTP
import Testing

/// The per-origin limit seen through the client: jobs beyond `maxConnectionsPerHost` wait on the curl thread.
@Suite struct OriginLimitTests {
    /// A job waiting for its origin's only slot is failed from the queue; it never reaches the server.
    @Test func jobWaitingForASlotCanBeCancelled() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(maxConnectionsPerHost: 1)
            defer { client.shutdown() }
            let holder = Task { await failure(client, ClientRequest(url: server.url("/slow"), timeout: .seconds(10))) }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            let waiter = Task { await failure(client, ClientRequest(url: server.url("/hello"), timeout: .seconds(10))) }
            try await Task.sleep(for: .milliseconds(200))
            waiter.cancel()
            #expect(await waiter.value?.kind == .cancelled)
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(server.log.requestCount == 1)
            holder.cancel()
            #expect(await holder.value?.kind == .cancelled)
        }
    }

    /// Time spent waiting for a slot counts against the request's timeout: once the slot frees, a job whose deadline
    /// passed meanwhile fails without being sent.
    @Test func waitingCountsAgainstTheTimeout() async throws {
        try await withTestServer { server in
            let client = CurlHTTPClient(maxConnectionsPerHost: 1)
            defer { client.shutdown() }
            let results = await client.execute(all: [
                ClientRequest(url: server.url("/slow"), timeout: .milliseconds(600)),
                ClientRequest(url: server.url("/hello"), timeout: .milliseconds(300)),
            ])
            let errors = results.map(\.outcome.failureValue)
            #expect(errors[0]?.kind == .timeout)
            #expect(errors[0]?.call == "curl_multi_info_read")
            #expect(errors[1]?.kind == .timeout)
            #expect(errors[1]?.call == "curl_multi_add_handle")
            #expect(server.log.requestCount == 1)
        }
    }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
