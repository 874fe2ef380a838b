@testable import BridgeFeatures
import Testing
import Upstreams

/// The cache's storage: keyed by 64 bits of the digest, it must still never hand out another token's user, and its
/// eviction order (references) must drop the oldest entry that is still the table's own.
@Suite struct VerificationTableTests {
    static func digest(_ first: UInt64, _ rest: UInt64) -> TokenDigest { TokenDigest(words: (first, rest, rest, rest)) }

    static func entry(_ digest: TokenDigest, user: Int64, until: Int64 = 100) -> CachedVerification {
        CachedVerification.make(digest: digest, user: KakaoUser(id: user), trustedUntil: until, tokenExpiresAt: nil)!
    }

    @Test func aDigestThatSharesTheKeyIsAMissNotAnotherUser() {
        var table = VerificationTable(maxEntries: 10)
        let ryan = Self.digest(7, 1), mallory = Self.digest(7, 2)
        table.insert(Self.entry(ryan, user: 1), now: 0)
        #expect(table.entry(for: mallory, now: 1) == nil)
        #expect(table.entry(for: ryan, now: 1)?.userID == 1)
        // The later token takes the slot; the earlier one is simply no longer cached.
        table.insert(Self.entry(mallory, user: 2), now: 1)
        #expect(table.entry(for: ryan, now: 2) == nil)
        #expect(table.entry(for: mallory, now: 2)?.userID == 2)
        #expect(table.count == 1)
    }

    @Test func pastTheBoundTheOldestGoesFirst() {
        var table = VerificationTable(maxEntries: 2)
        for n in 1...3 { table.insert(Self.entry(Self.digest(UInt64(n), 0), user: Int64(n)), now: 0) }
        #expect(table.count == 2)
        #expect(table.entry(for: Self.digest(1, 0), now: 0) == nil)
        #expect(table.entry(for: Self.digest(2, 0), now: 0) != nil)
        #expect(table.entry(for: Self.digest(3, 0), now: 0) != nil)
    }

    @Test func expiredEntriesAreDroppedWhenANewOneComes() {
        var table = VerificationTable(maxEntries: 100)
        table.insert(Self.entry(Self.digest(1, 0), user: 1, until: 10), now: 0)
        table.insert(Self.entry(Self.digest(2, 0), user: 2, until: 20), now: 5)
        table.insert(Self.entry(Self.digest(3, 0), user: 3, until: 30), now: 15)
        #expect(table.count == 2)
        #expect(table.entry(for: Self.digest(1, 0), now: 15) == nil)
        // Read after its time, an entry is a miss and is dropped then.
        #expect(table.entry(for: Self.digest(2, 0), now: 20) == nil)
        #expect(table.count == 1)
    }

    @Test func aReplacedEntrysOldPlaceInLineEvictsNothing() {
        var table = VerificationTable(maxEntries: 2)
        let token = Self.digest(1, 0)
        table.insert(Self.entry(token, user: 1, until: 10), now: 0)
        table.insert(Self.entry(Self.digest(2, 0), user: 2, until: 50), now: 1)
        // The same token verified again later: its first place in line is stale.
        table.insert(Self.entry(token, user: 1, until: 60), now: 11)
        table.insert(Self.entry(Self.digest(3, 0), user: 3, until: 70), now: 12)
        // Over the bound by one: the stale place is skipped and the oldest live entry (user 2) goes, not the renewed one.
        #expect(table.count == 2)
        #expect(table.entry(for: token, now: 12)?.trustedUntil == 60)
        #expect(table.entry(for: Self.digest(2, 0), now: 12) == nil)
        #expect(table.entry(for: Self.digest(3, 0), now: 12) != nil)
    }

    @Test func droppingAUserRemovesOnlyTheirs() {
        var table = VerificationTable(maxEntries: 10)
        table.insert(Self.entry(Self.digest(1, 0), user: 1), now: 0)
        table.insert(Self.entry(Self.digest(2, 0), user: 1), now: 0)
        table.insert(Self.entry(Self.digest(3, 0), user: 2), now: 0)
        #expect(table.dropUser(1) == 2)
        #expect(table.count == 1)
        #expect(table.entry(for: Self.digest(3, 0), now: 0)?.userID == 2)
    }
}
