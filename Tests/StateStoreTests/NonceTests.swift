import StateStore
import Testing

@Suite("Nonces")
struct NonceTests {
    @Test("a nonce used twice is replayed, in either process", arguments: StoreKind.allCases)
    func replayed(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            try await a.ping()
            let id = randomBytes()
            #expect(try await a.useNonce(id: id, expiresAt: 2_000_000) == .first)
            #expect(try await a.useNonce(id: id, expiresAt: 2_000_000) == .replayed)
            #expect(try await b.useNonce(id: id, expiresAt: 2_000_000) == .replayed)
            let other = randomBytes()
            #expect(try await b.useNonce(id: other, expiresAt: 2_000_000) == .first)
            #expect(try await a.useNonce(id: other, expiresAt: 2_000_000) == .replayed)
        }
    }

    @Test("of many simultaneous uses across two processes exactly one is first", arguments: StoreKind.allCases)
    func oneFirst(kind: StoreKind) async throws {
        try await withStores(kind) { a, b in
            let id = randomBytes()
            let uses = try await withThrowingTaskGroup(of: NonceUse.self) { group in
                for i in 0..<16 {
                    let store = i % 2 == 0 ? a : b
                    group.addTask { try await store.useNonce(id: id, expiresAt: 2_000_000) }
                }
                return try await group.reduce(into: [NonceUse]()) { $0.append($1) }
            }
            #expect(uses.filter { $0 == .first }.count == 1)
            #expect(uses.count == 16)
        }
    }
}
