import DequeModule

/// What an `ExpiringTable` holds: a reference (the table's order keeps one per insertion and tells a replaced entry by
/// identity), with its key and the moment it stops counting.
package protocol ExpiringEntry: AnyObject {
    associatedtype Key: Hashable
    associatedtype Moment: Comparable
    var key: Key { get }
    var expiresAt: Moment { get }
}

/// The one expiring table of the service: the Kakao verification cache, the user cache, this process's copy of the
/// unlink marks and the rate limiter's buckets are all entries by key that stop counting at a moment, bounded in number.
/// (The used nonces and security events' `jti`s are not: they live in the state store, shared by every instance.)
///
/// Entries go in insertion order (a replaced entry's old slot is skipped when it reaches the front), so the front is the
/// oldest insertion: dropping from it removes what has expired and, past `maxEntries`, the oldest live entries (a cache
/// forgets; nothing that must not forget lives here).
/// Expiry is checked on every read, so an entry past its moment never counts even before it is dropped.
///
/// Pure bookkeeping: no clock and no lock. Its owner holds it under a `Mutex` and passes the time in, so the tests drive
/// it with moments of their choosing.
package struct ExpiringTable<Entry: ExpiringEntry> {
    package let maxEntries: Int
    private var entries: [Entry.Key: Entry] = [:]
    private var order = Deque<Entry>()

    package init(maxEntries: Int) {
        self.maxEntries = max(1, maxEntries)
    }

    /// Entries held, live or expired but not yet dropped.
    package var count: Int { entries.count }

    /// Slots in the insertion order, stale ones included (tests: the order stays bounded).
    package var orderCount: Int { order.count }

    /// The live entry for `key`; an expired one is dropped on the way.
    package mutating func entry(for key: Entry.Key, now: Entry.Moment) -> Entry? {
        guard let entry = entries[key] else { return nil }
        guard now < entry.expiresAt else {
            entries[key] = nil
            return nil
        }
        return entry
    }

    /// Puts `entry` in (replacing the entry of its key), making room for a new key.
    package mutating func insert(_ entry: Entry, now: Entry.Moment) {
        if entries[entry.key] == nil { dropFront(now: now, room: 1) }
        entries[entry.key] = entry
        order.append(entry)
        // Replacements leave stale slots behind a live front; past twice the live count they are swept in one pass.
        if order.count > 2 * entries.count + 64 { order = Deque(order.filter { entries[$0.key] === $0 }) }
    }

    @discardableResult
    package mutating func remove(_ key: Entry.Key) -> Entry? { entries.removeValue(forKey: key) }

    /// Removes every entry `matching` says; returns how many. A walk over the table: for rare events (an unlink).
    @discardableResult
    package mutating func removeAll(where matching: (Entry) -> Bool) -> Int {
        let keys = entries.compactMap { matching($0.value) ? $0.key : nil }
        for key in keys { entries[key] = nil }
        return keys.count
    }

    /// Drops expired entries from the front, and live ones until `room` more fit.
    private mutating func dropFront(now: Entry.Moment, room: Int) {
        while let oldest = order.first {
            if entries[oldest.key] === oldest {
                let over = entries.count + room > maxEntries
                guard over || oldest.expiresAt <= now else { break }
                entries[oldest.key] = nil
            }
            order.removeFirst()
        }
    }
}
