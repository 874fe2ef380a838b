import BridgeSupport
import Testing

/// The one expiring table behind the caches, the nonce and unlink memories and the rate limiter.
@Suite struct ExpiringTableTests {
    final class Item: ExpiringEntry {
        let key: String
        let expiresAt: Int64
        init(_ key: String, until expiresAt: Int64) {
            self.key = key
            self.expiresAt = expiresAt
        }
    }

    @Test func anEntryCountsUntilItsMomentAndNotAtIt() {
        var table = ExpiringTable<Item>(maxEntries: 10)
        table.insert(Item("a", until: 10), now: 0)
        #expect(table.entry(for: "a", now: 9)?.key == "a")
        #expect(table.entry(for: "a", now: 10) == nil)
        #expect(table.count == 0, "dropped on the way")
    }

    @Test func dropOldestMakesRoomWithTheOldestInsertion() {
        var table = ExpiringTable<Item>(maxEntries: 2)
        for key in ["a", "b", "c"] { table.insert(Item(key, until: 100), now: 0) }
        #expect(table.count == 2)
        #expect(table.entry(for: "a", now: 1) == nil)
        #expect(table.entry(for: "c", now: 1) != nil)
    }

    @Test func aReplacedEntryIsNotDroppedForItsOldSlot() {
        var table = ExpiringTable<Item>(maxEntries: 2)
        table.insert(Item("a", until: 10), now: 0)
        table.insert(Item("b", until: 50), now: 1)
        table.insert(Item("a", until: 60), now: 11)
        table.insert(Item("c", until: 70), now: 12)
        // The front was a's first slot, stale; b is the oldest live insertion and goes.
        #expect(table.entry(for: "a", now: 13)?.expiresAt == 60)
        #expect(table.entry(for: "b", now: 13) == nil)
        #expect(table.entry(for: "c", now: 13) != nil)
    }

    @Test func staleSlotsBehindALiveFrontAreSweptSoTheOrderStaysBounded() {
        var table = ExpiringTable<Item>(maxEntries: 10)
        table.insert(Item("front", until: 1_000), now: 0)
        for moment in 1...10_000 { table.insert(Item("busy", until: 1_000 + Int64(moment)), now: Int64(moment) / 100) }
        #expect(table.count == 2)
        #expect(table.entry(for: "busy", now: 101)?.expiresAt == 11_000)
        #expect(table.orderCount <= 2 * 2 + 64 + 1)
    }

    @Test func removeAllWalksTheTable() {
        var table = ExpiringTable<Item>(maxEntries: 10)
        for key in ["a1", "a2", "b1"] { table.insert(Item(key, until: 100), now: 0) }
        let removed = table.removeAll { $0.key.hasPrefix("a") }
        #expect(removed == 2)
        #expect(table.count == 1)
        let last = table.remove("b1")
        #expect(last?.key == "b1")
    }
}
