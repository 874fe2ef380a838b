import DequeModule

/// Per-origin admission: at most `maxPerOrigin` elements of one origin are admitted at a time; the rest wait in
/// their origin's line, oldest first, until a slot of that origin is released.
///
/// Pure bookkeeping with no curl and no locking: the curl thread keeps one for its jobs (`CurlThreadDriver`), and the
/// tests drive it with plain values. Left to curl, a burst of a thousand logins attaches two thousand easy handles
/// (each with its own buffers) that wait for a connection in no particular order, which costs tens of megabytes and
/// lets unlucky calls run into their deadlines; queueing them here keeps that burst cheap and first come, first served.
///
/// Invariant: an origin has waiting elements only while all of its slots are taken.
struct OriginQueue<Element: Identifiable> {
    let maxPerOrigin: Int
    /// Slots taken per origin; origins with none are absent.
    private var admitted: [Substring: Int] = [:]
    /// Elements waiting for a slot, per origin, oldest first; origins with none are absent.
    private var waiting: [Substring: Deque<Element>] = [:]
    /// The origin each waiting element waits for, so it can be found by id.
    private var waitingOrigin: [Element.ID: Substring] = [:]

    init(maxPerOrigin: Int) {
        self.maxPerOrigin = max(1, maxPerOrigin)
    }

    /// Takes a slot of `origin` for `element` and returns `true`, or, when all are taken, puts it at the back of the
    /// origin's line and returns `false`.
    mutating func admit(_ element: Element, origin: Substring) -> Bool {
        let taken = admitted[origin, default: 0]
        guard taken < maxPerOrigin else {
            waiting[origin, default: Deque()].append(element)
            waitingOrigin[element.id] = origin
            return false
        }
        admitted[origin] = taken + 1
        return true
    }

    /// Gives back a slot of `origin`. The oldest element waiting for that origin, if any, takes it over and is
    /// returned (admitted); otherwise the slot is free.
    mutating func release(_ origin: Substring) -> Element? {
        if let next = waiting[origin]?.popFirst() {
            waitingOrigin[next.id] = nil
            if waiting[origin]?.isEmpty == true { waiting[origin] = nil }
            return next
        }
        guard let taken = admitted[origin] else { return nil }
        admitted[origin] = taken > 1 ? taken - 1 : nil
        return nil
    }

    /// Takes a waiting element out of its line (it never held a slot); `nil` if none with `id` waits.
    mutating func removeWaiting(id: Element.ID) -> Element? {
        guard let origin = waitingOrigin.removeValue(forKey: id),
              let index = waiting[origin]?.firstIndex(where: { $0.id == id }),
              let element = waiting[origin]?.remove(at: index)
        else { return nil }
        if waiting[origin]?.isEmpty == true { waiting[origin] = nil }
        return element
    }

    /// Empties every line and returns what waited, each origin's elements oldest first. Taken slots stay taken.
    mutating func drainWaiting() -> [Element] {
        defer {
            waiting = [:]
            waitingOrigin = [:]
        }
        return waiting.values.flatMap { $0 }
    }

    func admittedCount(_ origin: Substring) -> Int { admitted[origin, default: 0] }
    func waitingCount(_ origin: Substring) -> Int { waiting[origin]?.count ?? 0 }
    var isIdle: Bool { admitted.isEmpty && waiting.isEmpty }
}
