import StateStore
import Testing

/// An account deletion (docs/api.md#deleting-an-account) is a queued event of its own kind (schema version 4): its third
/// step, the unlink at the provider, is completed and deferred like the others, the link record and the kind are kept,
/// and its record is found again by id, in every store.
@Suite("Account deletion records")
struct DeletionRecordTests {
    static func deletion(at: Int64 = 1_000_000) -> AccountEvent {
        var event = AccountEvent(
            id: AccountEvent.deletionID(uid: "email-user"), kakaoID: 7, reason: "account_deleted", receivedAt: at,
            deadline: at + 3600, provider: "kakao", providerID: "7", kind: .deletion, providerUnlink: .pending,
            linkRecord: "kakao:7"
        )
        event.uid = "email-user"
        event.backend.state = .skipped
        return event
    }

    @Test("a deletion keeps its kind, link record and three steps", arguments: StoreKind.allCases)
    func aDeletionRoundTrips(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let deletion = Self.deletion()
            #expect(try await a.enqueue(deletion))
            #expect(try await !b.enqueue(deletion))
            let found = try #require(try await b.event(id: "deletion:email-user"))
            #expect(found == deletion)
            #expect(found.kind == .deletion && found.linkRecord == "kakao:7" && found.uid == "email-user")
            #expect(found.providerUnlink.state == .pending && found.backend.state == .skipped)
            #expect(try await b.event(id: "deletion:nobody") == nil)

            // The unlink step is deferred and then completed like the others; the skipped step stays skipped.
            let claimed = try await b.claimDue(owner: "b", now: 1_000_000, leaseSeconds: 30, limit: 5)
            #expect(claimed.map(\.id) == ["deletion:email-user"])
            #expect(try await b.completeStep(id: deletion.id, step: .firebase, owner: "b", uid: "email-user"))
            #expect(try await b.deferStep(id: deletion.id, step: .providerUnlink, owner: "b", errorCode: "kakao_unavailable", nextAttemptAt: 1_000_002))
            var stored = try #require(try await a.event(id: deletion.id))
            #expect(stored.providerUnlink.state == .pending && stored.providerUnlink.attempts == 1)
            #expect(stored.providerUnlink.lastErrorCode == "kakao_unavailable" && stored.nextAttemptAt == 1_000_002)
            #expect(try await a.claimDue(owner: "a", now: 1_000_001, leaseSeconds: 30, limit: 5).isEmpty)
            #expect(try await a.claimDue(owner: "a", now: 1_000_002, leaseSeconds: 30, limit: 5).count == 1)
            #expect(try await a.completeStep(id: deletion.id, step: .providerUnlink, owner: "a", uid: nil))
            try await a.finish(id: deletion.id)
            stored = try #require(try await b.event(id: deletion.id))
            #expect(stored.state == .done && stored.providerUnlink.state == .done && stored.firebase.state == .done)
            #expect(stored.backend.state == .skipped)
            // An account event has no such step.
            let plain = AccountEvent(id: "k1", kakaoID: 9, reason: "UNLINK_FROM_APPS", receivedAt: 1_000_000, deadline: 1_003_600)
            try await a.enqueue(plain)
            let read = try #require(try await b.event(id: "k1"))
            #expect(read.kind == .accountEvent && read.providerUnlink.state == .skipped && read.linkRecord == nil)
        }
    }
}
