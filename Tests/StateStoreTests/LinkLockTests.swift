import StateStore
import Testing

@Suite("Link locks")
struct LinkLockTests {
    @Test("one owner at a time, fleet-wide; an expired lock is taken over", arguments: StoreKind.allCases)
    func lease(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let key = String(repeating: "u", count: 128)
            #expect(try await a.acquireLinkLock(key: key, owner: "a", leaseSeconds: 10, now: 1_000_000))
            #expect(try await !b.acquireLinkLock(key: key, owner: "b", leaseSeconds: 10, now: 1_000_005))
            // The holder renews.
            #expect(try await a.acquireLinkLock(key: key, owner: "a", leaseSeconds: 10, now: 1_000_008))
            #expect(try await !b.acquireLinkLock(key: key, owner: "b", leaseSeconds: 10, now: 1_000_017))
            #expect(try await b.acquireLinkLock(key: key, owner: "b", leaseSeconds: 10, now: 1_000_018))
            // Only the holder releases.
            try await a.releaseLinkLock(key: key, owner: "a")
            #expect(try await !a.acquireLinkLock(key: key, owner: "a", leaseSeconds: 10, now: 1_000_019))
            try await b.releaseLinkLock(key: key, owner: "b")
            #expect(try await a.acquireLinkLock(key: key, owner: "a", leaseSeconds: 10, now: 1_000_019))
            // Another key is another lock.
            #expect(try await b.acquireLinkLock(key: "other", owner: "b", leaseSeconds: 10, now: 1_000_019))
        }
    }

    @Test("of many simultaneous takers exactly one gets the lock", arguments: StoreKind.allCases)
    func race(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let won = try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<12 {
                    let store = i % 2 == 0 ? a : b
                    group.addTask { try await store.acquireLinkLock(key: "race", owner: "o\(i)", leaseSeconds: 30, now: 1_000_000) }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(won == 1)
        }
    }
}
