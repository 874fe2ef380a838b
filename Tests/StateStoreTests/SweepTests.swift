import StateStore
import Testing

@Suite("Sweeping")
struct SweepTests {
    @Test("deleteExpired removes what has expired and nothing else", arguments: StoreKind.allCases)
    func sweep(kind: StoreKind) async throws {
        let clock = TestClock(1_000_000)
        try await withStores(kind, clock: clock) { a, b in
            let old = randomBytes(), fresh = randomBytes()
            #expect(try await a.useNonce(id: old, expiresAt: 1_000_100) == .first)
            #expect(try await a.useNonce(id: fresh, expiresAt: 1_200_000) == .first)
            try await a.setUnlinkMark(kakaoID: 1, at: 1_000_000)
            try await a.setUnlinkMark(kakaoID: 2, at: 1_050_000)
            #expect(try await a.acquireLinkLock(key: "gone", owner: "a", leaseSeconds: 10, now: 1_000_000))
            #expect(try await a.acquireLinkLock(key: "kept", owner: "a", leaseSeconds: 500_000, now: 1_000_000))
            for id in ["done-old", "done-new", "pending", "failed"] {
                try await a.enqueue(AccountEvent(id: id, kakaoID: 5, reason: "ACCOUNT_DELETE", receivedAt: 1_000_000, deadline: 2_000_000))
            }
            try await a.finish(id: "done-old")
            clock.now = 1_050_000
            try await a.finish(id: "done-new")
            try await a.markFailed(id: "failed", errorCode: "backend_unavailable")

            // 1_000_000 + 24 h = 1_086_400: mark 1 and done-old are exactly a day old.
            let deleted = try await b.deleteExpired(now: 1_086_400)
            #expect(deleted == 4)
            #expect(try await b.useNonce(id: old, expiresAt: 1_200_000) == .first)
            #expect(try await b.useNonce(id: fresh, expiresAt: 1_200_000) == .replayed)
            #expect(try await b.unlinkMarks(after: 0).marks == [UnlinkMark(kakaoID: 2, at: 1_050_000)])
            #expect(try await b.acquireLinkLock(key: "gone", owner: "b", leaseSeconds: 10, now: 1_086_400))
            #expect(try await !b.acquireLinkLock(key: "kept", owner: "b", leaseSeconds: 10, now: 1_086_400))
            #expect(try await b.events(state: .done).map(\.id) == ["done-new"])
            #expect(try await b.queueCounts() == AccountEventCounts(pending: 1, failed: 1))
            #expect(try await b.deleteExpired(now: 1_086_400) == 0)
        }
    }
}
