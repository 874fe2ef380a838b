import HTTPTypes
@testable import BridgeFeatures
@testable import KakaoBridge
import Synchronization
import Testing

/// `AdmissionQueue`: a bounded number of holders, the rest served in arrival order; a cancelled waiter leaves the line.
@Suite struct AdmissionQueueTests {
    /// Waits (briefly, without timing anything) until `condition` holds.
    static func until(_ condition: () -> Bool) async {
        for _ in 0..<2000 where !condition() { try? await Task.sleep(for: .milliseconds(2)) }
    }

    @Test func belowTheLimitNobodyWaits() async throws {
        let queue = AdmissionQueue(limit: 2)
        #expect(try await queue.enter() == false)
        #expect(try await queue.enter() == false)
        #expect(queue.holding == 2)
        #expect(queue.waiting == 0)
        queue.leave()
        queue.leave()
        #expect(queue.holding == 0)
    }

    @Test func waitersAreAdmittedInArrivalOrder() async throws {
        let queue = AdmissionQueue(limit: 1)
        try await queue.enter()
        let order = Arrivals()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<5 {
                group.addTask {
                    let waited = try await queue.enter()
                    #expect(waited)
                    order.values.withLock { $0.append(index) }
                    queue.leave()
                }
                // Each waiter is in line before the next one arrives.
                await Self.until { queue.waiting == index + 1 }
            }
            #expect(queue.waiting == 5)
            queue.leave()
            try await group.waitForAll()
        }
        #expect(order.values.withLock { $0 } == [0, 1, 2, 3, 4])
        #expect(queue.holding == 0)
        #expect(queue.waiting == 0)
    }

    @Test func aCancelledWaiterLeavesTheLineAndHoldsNothing() async throws {
        let queue = AdmissionQueue(limit: 1)
        try await queue.enter()
        let cancelled = Task { try await queue.enter() }
        await Self.until { queue.waiting == 1 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(queue.waiting == 0)
        // A task cancelled before it asks never waits either.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await queue.enter()
        }
        await #expect(throws: CancellationError.self) { try await early.value }
        queue.leave()
        #expect(queue.holding == 0)
        try await queue.enter()
        #expect(queue.holding == 1)
    }

    @Test func theLimitIsSixtyFourLoginsPerCore() {
        #expect(RequestAdmission.limit(cores: 2) == 128)
        #expect(RequestAdmission.limit(cores: 0) == 64)
    }

    @Test func onlyTheTwoLoginRoutesWait() {
        let logins = ["/v1/token-exchange", "/v1/kakao/some-token"]
        for path in logins { #expect(RequestAdmission.isLogin(method: .get, path: Substring(path)), "\(path)") }
        let others: [(HTTPRequest.Method, String)] = [
            (.post, "/v1/token-exchange"), (.get, "/v1/kakao/nonce"), (.get, "/v1/kakao/unlink"), (.post, "/v1/kakao/unlink"),
            (.get, "/v1/kakao/"), (.get, "/v1/kakao/a/b"), (.post, "/v1/login-complete"), (.post, "/v1/users/revoke"),
            (.get, "/healthz"), (.get, "/readyz"), (.get, "/metrics"), (.get, "/v1/token-exchange/extra"),
        ]
        for (method, path) in others {
            #expect(!RequestAdmission.isLogin(method: method, path: Substring(path)), "\(path)")
        }
    }
}

/// The order in which waiters got their place.
private final class Arrivals: Sendable {
    let values = Mutex<[Int]>([])
}
