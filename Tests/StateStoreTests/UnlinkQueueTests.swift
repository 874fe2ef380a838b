import StateStore
import Testing

@Suite("The unlink queue")
struct UnlinkQueueTests {
    static func event(_ id: String, kakaoID: Int64 = 7, at: Int64 = 1_000_000) -> AccountEvent {
        AccountEvent(id: id, kakaoID: kakaoID, reason: "UNLINK_FROM_APPS", receivedAt: at, deadline: at + 72 * 3600)
    }

    @Test("enqueue is idempotent on the id, across processes", arguments: StoreKind.allCases)
    func enqueueOnce(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let event = Self.event("e1")
            try await b.ping()
            #expect(try await a.enqueue(event))
            #expect(try await !a.enqueue(event))
            #expect(try await !b.enqueue(Self.event("e1", kakaoID: 99)))
            #expect(try await b.events(state: .pending) == [event])
            #expect(try await b.queueCounts() == AccountEventCounts(pending: 1, failed: 0))
        }
    }

    /// Naver's unlink callback (docs/api.md#navers-unlink-callback) queues its events here too, naming the provider and its
    /// id; Kakao's events name none, as before (schema version 3).
    @Test("an event of another provider keeps its provider and id", arguments: StoreKind.allCases)
    func anotherProvidersEvent(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let naver = AccountEvent(
                id: "n1", kakaoID: -42, reason: "naver_unlink", receivedAt: 1_000_000, deadline: 1_000_000 + 3600,
                provider: "naver", providerID: "32742776-naver-id"
            )
            try await a.enqueue(naver)
            try await a.enqueue(Self.event("k1"))
            let events = try await b.events(state: .pending)
            // Oldest first, then by id: Kakao's `k1` before Naver's `n1`.
            #expect(events == [Self.event("k1"), naver])
            #expect(events.last?.provider == "naver" && events.last?.providerID == "32742776-naver-id")
            #expect(events.first?.provider == nil && events.first?.providerID == nil)
            let claimed = try await b.claimDue(owner: "b", now: 1_000_000, leaseSeconds: 30, limit: 10)
            #expect(claimed.first { $0.id == "n1" }?.providerID == "32742776-naver-id")
        }
    }

    @Test("two owners claiming at once never get the same event", arguments: StoreKind.allCases)
    func claimsAreDisjoint(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let ids = (0..<24).map { "c\($0)" }
            for id in ids { try await a.enqueue(Self.event(id)) }
            let claims = try await withThrowingTaskGroup(of: [String].self) { group in
                for (owner, store) in [("a", a), ("b", b), ("c", a), ("d", b)] {
                    group.addTask {
                        var mine: [String] = []
                        while true {
                            let got = try await store.claimDue(owner: owner, now: 1_000_000, leaseSeconds: 30, limit: 3)
                            if got.isEmpty { return mine }
                            #expect(got.allSatisfy { $0.leaseOwner == owner && $0.leaseExpiresAt == 1_000_030 })
                            mine += got.map(\.id)
                        }
                    }
                }
                return try await group.reduce(into: [[String]]()) { $0.append($1) }
            }
            let all = claims.flatMap { $0 }
            #expect(all.count == ids.count)
            #expect(Set(all) == Set(ids))
        }
    }

    @Test("an expired lease is taken over, and the stale owner is refused", arguments: StoreKind.allCases)
    func leaseTakeover(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            try await a.enqueue(Self.event("l1"))
            #expect(try await a.claimDue(owner: "a", now: 1_000_000, leaseSeconds: 30, limit: 10).map(\.id) == ["l1"])
            #expect(try await b.claimDue(owner: "b", now: 1_000_029, leaseSeconds: 30, limit: 10).isEmpty)
            #expect(try await a.renewLease(id: "l1", owner: "a", now: 1_000_020, leaseSeconds: 30))
            #expect(try await b.claimDue(owner: "b", now: 1_000_049, leaseSeconds: 30, limit: 10).isEmpty)
            let taken = try await b.claimDue(owner: "b", now: 1_000_050, leaseSeconds: 30, limit: 10)
            #expect(taken.map(\.id) == ["l1"])
            #expect(taken.first?.leaseOwner == "b")

            #expect(try await !a.completeStep(id: "l1", step: .firebase, owner: "a", uid: "stale"))
            #expect(try await !a.deferStep(id: "l1", step: .firebase, owner: "a", errorCode: "upstream_timeout", nextAttemptAt: 1_000_060))
            #expect(try await !a.renewLease(id: "l1", owner: "a", now: 1_000_051, leaseSeconds: 30))
            #expect(try await b.completeStep(id: "l1", step: .firebase, owner: "b", uid: "uid-1"))
            let event = try #require(try await a.events(state: .pending).first)
            #expect(event.uid == "uid-1")
            #expect(event.firebase.state == .done)
            #expect(event.firebase.attempts == 1)
            #expect(event.leaseOwner == "b")
        }
    }

    @Test("steps: a deferred step waits, a done step stays done, finish ends the event", arguments: StoreKind.allCases)
    func steps(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            try await a.enqueue(Self.event("s1"))
            _ = try await a.claimDue(owner: "a", now: 1_000_000, leaseSeconds: 30, limit: 1)
            #expect(try await a.completeStep(id: "s1", step: .firebase, owner: "a", uid: nil))
            #expect(try await a.deferStep(id: "s1", step: .backend, owner: "a", errorCode: "backend_unavailable", nextAttemptAt: 1_000_002))

            var event = try #require(try await b.events(state: .pending).first)
            #expect(event.uid == nil)
            #expect(event.firebase.state == .done)
            #expect(event.backend == AccountStepProgress(state: .pending, attempts: 1, nextAttemptAt: 1_000_002, lastErrorCode: "backend_unavailable"))
            #expect(event.nextAttemptAt == 1_000_002)
            #expect(event.leaseOwner == nil)

            #expect(try await b.claimDue(owner: "b", now: 1_000_001, leaseSeconds: 30, limit: 1).isEmpty)
            #expect(try await b.claimDue(owner: "b", now: 1_000_002, leaseSeconds: 30, limit: 1).map(\.id) == ["s1"])
            // A done step is never undone, nor its uid changed.
            #expect(try await b.completeStep(id: "s1", step: .firebase, owner: "b", uid: "late"))
            #expect(try await b.renewLease(id: "s1", owner: "b", now: 1_000_003, leaseSeconds: 30))
            #expect(try await b.deferStep(id: "s1", step: .firebase, owner: "b", errorCode: "firebase_admin_unavailable", nextAttemptAt: 1_000_100))
            event = try #require(try await a.events(state: .pending).first)
            #expect(event.firebase == AccountStepProgress(state: .done, attempts: 1, nextAttemptAt: 1_000_000, lastErrorCode: nil))
            #expect(event.uid == nil)

            _ = try await a.claimDue(owner: "a", now: 1_000_002, leaseSeconds: 30, limit: 1)
            #expect(try await a.completeStep(id: "s1", step: .backend, owner: "a", uid: nil))
            try await a.finish(id: "s1")
            let done = try await b.events(state: .done)
            #expect(done.map(\.id) == ["s1"])
            #expect(done.first?.backend.state == .done)
            #expect(done.first?.backend.attempts == 2)
            #expect(done.first?.leaseOwner == nil)
            #expect(try await b.queueCounts() == AccountEventCounts(pending: 0, failed: 0))
            #expect(try await b.claimDue(owner: "b", now: 2_000_000, leaseSeconds: 30, limit: 10).isEmpty)
        }
    }

    @Test("failed events are listed, counted and put back by id or all at once", arguments: StoreKind.allCases)
    func failAndRequeue(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            for id in ["f1", "f2", "f3"] { try await a.enqueue(Self.event(id)) }
            _ = try await a.claimDue(owner: "a", now: 1_000_000, leaseSeconds: 30, limit: 3)
            #expect(try await a.deferStep(id: "f1", step: .firebase, owner: "a", errorCode: "firebase_admin_rejected", nextAttemptAt: 1_000_010))
            try await a.markFailed(id: "f1", errorCode: "firebase_admin_rejected")
            try await a.markFailed(id: "f2", errorCode: "backend_rejected")
            #expect(try await b.queueCounts() == AccountEventCounts(pending: 1, failed: 2))
            let failed = try await b.events(state: .failed)
            #expect(failed.map(\.id) == ["f1", "f2"])
            #expect(failed.map(\.lastErrorCode) == ["firebase_admin_rejected", "backend_rejected"])
            #expect(failed.allSatisfy { $0.leaseOwner == nil })

            // Only failed events come back: f3 is pending and stays as it is.
            #expect(try await b.requeue(.ids(["f1", "f3", "missing"]), now: 2_000_000, newDeadline: 2_100_000) == 1)
            let f1 = try #require(try await a.events(state: .pending).first { $0.id == "f1" })
            #expect(f1.deadline == 2_100_000)
            #expect(f1.nextAttemptAt == 2_000_000)
            #expect(f1.firebase.nextAttemptAt == 2_000_000)
            #expect(f1.firebase.attempts == 1)
            #expect(try await b.requeue(.allFailed, now: 2_000_000, newDeadline: 2_100_000) == 1)
            #expect(try await a.queueCounts() == AccountEventCounts(pending: 3, failed: 0))
            let claimed = try await b.claimDue(owner: "b", now: 2_000_000, leaseSeconds: 30, limit: 10)
            // f3 too: its first lease has long expired.
            #expect(Set(claimed.map(\.id)) == ["f1", "f2", "f3"])
        }
    }
}
