import StateStore
import Testing

/// What Kakao's security events (docs/api.md#kakaos-security-events) keep in the store: marks that only drop caches,
/// the event type of a queued event, and the users the service disabled; every store, seen from both processes.
@Suite("Security event state")
struct SecurityEventStateTests {
    @Test("a change mark drops caches without ending sessions, and never undoes an unlink", arguments: StoreKind.allCases)
    func changeMarks(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            try await a.recordChange(kakaoID: 31, at: 1_000_000)
            let first = try await b.unlinkMarks(after: 0)
            #expect(first.marks == [UnlinkMark(kakaoID: 31, at: 0, changedAt: 1_000_000)])
            #expect(first.marks.first?.endsSessions == false)

            try await b.setUnlinkMark(kakaoID: 31, at: 1_000_010)
            try await a.recordChange(kakaoID: 31, at: 1_000_020)
            let second = try await b.unlinkMarks(after: first.cursor)
            #expect(second.marks == [UnlinkMark(kakaoID: 31, at: 1_000_010, changedAt: 1_000_020)])
            #expect(second.marks.first?.endsSessions == true)

            // Swept a day after the later of the two times, not after the unlink's.
            try await a.deleteExpired(now: 1_000_010 + UnlinkMark.lifetimeSeconds + 5)
            #expect(try await b.unlinkMarks(after: 0).marks.count == 1)
            try await a.deleteExpired(now: 1_000_020 + UnlinkMark.lifetimeSeconds)
            #expect(try await b.unlinkMarks(after: 0).marks.isEmpty)
        }
    }

    @Test("a queued event keeps its event type", arguments: StoreKind.allCases)
    func eventType(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let type = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
            #expect(try await a.enqueue(AccountEvent(id: "set:jti-1#0", kakaoID: 41, reason: "", receivedAt: 1_000_000, deadline: 1_000_100, eventType: type)))
            #expect(try await a.enqueue(AccountEvent(id: "webhook-1", kakaoID: 42, reason: "UNLINK_FROM_APPS", receivedAt: 1_000_001, deadline: 1_000_100)))
            let claimed = try await b.claimDue(owner: "b", now: 1_000_002, leaseSeconds: 30, limit: 10)
            #expect(claimed.map(\.eventType) == [type, nil])
            #expect(try await a.events(state: .pending).map(\.eventType) == [type, nil])
        }
    }

    @Test("the users the service disabled are remembered until forgotten, in either process", arguments: StoreKind.allCases)
    func disabledByService(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            #expect(try await b.isDisabledByService(kakaoID: 51) == false)
            try await a.setDisabledByService(kakaoID: 51, true, at: 1_000_000)
            try await a.setDisabledByService(kakaoID: 51, true, at: 1_000_005)
            #expect(try await b.isDisabledByService(kakaoID: 51))
            #expect(try await b.isDisabledByService(kakaoID: 52) == false)
            try await a.deleteExpired(now: 9_000_000)
            #expect(try await b.isDisabledByService(kakaoID: 51), "never swept")
            try await b.setDisabledByService(kakaoID: 51, false, at: 1_000_010)
            #expect(try await a.isDisabledByService(kakaoID: 51) == false)
            try await b.setDisabledByService(kakaoID: 51, false, at: 1_000_011)
        }
    }
}
