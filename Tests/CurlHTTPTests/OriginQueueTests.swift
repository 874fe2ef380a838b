@testable import CurlHTTP
import Testing

/// `OriginQueue` with plain values: no curl, no sockets, no threads.
@Suite struct OriginQueueTests {
    struct Item: Identifiable, Equatable {
        let id: Int
    }

    let a: Substring = "http://a.test"
    let b: Substring = "https://b.test:8443"

    @Test func admitsUpToTheLimitThenQueues() {
        var queue = OriginQueue<Item>(maxPerOrigin: 2)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.admit(Item(id: 2), origin: a) == true)
        #expect(queue.admit(Item(id: 3), origin: a) == false)
        #expect(queue.admittedCount(a) == 2)
        #expect(queue.waitingCount(a) == 1)
    }

    @Test func originsHaveSlotsOfTheirOwn() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.admit(Item(id: 2), origin: b) == true)
        #expect(queue.admit(Item(id: 3), origin: a) == false)
        #expect(queue.release(b) == nil)
        #expect(queue.admittedCount(b) == 0)
        #expect(queue.waitingCount(a) == 1)
    }

    @Test func limitIsAtLeastOne() {
        var queue = OriginQueue<Item>(maxPerOrigin: 0)
        #expect(queue.maxPerOrigin == 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.admit(Item(id: 2), origin: a) == false)
    }

    @Test func releasedSlotGoesToTheOldestWaiter() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        for id in 2...4 { #expect(queue.admit(Item(id: id), origin: a) == false) }
        #expect(queue.release(a) == Item(id: 2))
        #expect(queue.admittedCount(a) == 1)
        #expect(queue.release(a) == Item(id: 3))
        #expect(queue.release(a) == Item(id: 4))
        #expect(queue.admittedCount(a) == 1)
        #expect(queue.release(a) == nil)
        #expect(queue.admittedCount(a) == 0)
        #expect(queue.isIdle)
    }

    @Test func releaseWithoutWaitersFreesTheSlot() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.release(a) == nil)
        #expect(queue.admit(Item(id: 2), origin: a) == true)
    }

    @Test func releaseOfAnOriginWithNothingAdmittedChangesNothing() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.release(a) == nil)
        #expect(queue.isIdle)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.admit(Item(id: 2), origin: a) == false)
    }

    @Test func waiterRemovedByIDLeavesTheOthersInOrder() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        for id in 2...4 { #expect(queue.admit(Item(id: id), origin: a) == false) }
        #expect(queue.removeWaiting(id: 3) == Item(id: 3))
        #expect(queue.removeWaiting(id: 3) == nil)
        #expect(queue.waitingCount(a) == 2)
        #expect(queue.admittedCount(a) == 1)
        #expect(queue.release(a) == Item(id: 2))
        #expect(queue.release(a) == Item(id: 4))
        #expect(queue.release(a) == nil)
        #expect(queue.isIdle)
    }

    @Test func admittedOrUnknownIDsAreNotRemovable() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.removeWaiting(id: 1) == nil)
        #expect(queue.removeWaiting(id: 99) == nil)
        #expect(queue.admittedCount(a) == 1)
    }

    @Test func removingTheLastWaiterEmptiesTheLine() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.admit(Item(id: 2), origin: a) == false)
        #expect(queue.removeWaiting(id: 2) == Item(id: 2))
        #expect(queue.waitingCount(a) == 0)
        #expect(queue.release(a) == nil)
        #expect(queue.isIdle)
    }

    @Test func drainReturnsEveryWaiterInOrderAndKeepsSlotsTaken() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 1), origin: a) == true)
        #expect(queue.admit(Item(id: 2), origin: b) == true)
        for id in [3, 4] { #expect(queue.admit(Item(id: id), origin: a) == false) }
        #expect(queue.admit(Item(id: 5), origin: b) == false)
        let drained = queue.drainWaiting()
        #expect(drained.map(\.id).sorted() == [3, 4, 5])
        #expect(drained.filter { $0.id != 5 }.map(\.id) == [3, 4])
        #expect(queue.waitingCount(a) == 0 && queue.waitingCount(b) == 0)
        #expect(queue.removeWaiting(id: 4) == nil)
        #expect(queue.admittedCount(a) == 1 && queue.admittedCount(b) == 1)
        #expect(queue.release(a) == nil)
        #expect(queue.release(b) == nil)
        #expect(queue.isIdle)
    }

    /// A steady backlog: thousands pass through one slot, first come, first served.
    @Test func longBacklogStaysFirstComeFirstServed() {
        var queue = OriginQueue<Item>(maxPerOrigin: 1)
        #expect(queue.admit(Item(id: 0), origin: a) == true)
        var served: [Int] = []
        for id in 1...5000 {
            #expect(queue.admit(Item(id: id), origin: a) == false)
            if id.isMultiple(of: 2), let next = queue.release(a) { served.append(next.id) }
        }
        while let next = queue.release(a) { served.append(next.id) }
        #expect(served == Array(1...5000))
        #expect(queue.isIdle)
    }
}

/// The origin a request is counted under.
@Suite struct RequestOriginTests {
    @Test(arguments: [
        ("https://kauth.kakao.com/oauth/token?grant=1", "https://kauth.kakao.com"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://h.test:1?q=/x", "http://h.test:1"),
        ("http://h.test#part/x", "http://h.test"),
        ("http://user@h.test:1/p", "http://user@h.test:1"),
        ("http://[::1]:9/p", "http://[::1]:9"),
        ("not a url", "not a url"),
        ("mailto:someone", "mailto:someone"),
    ])
    func originIsSchemeAndAuthority(url: String, origin: String) {
        #expect(ClientRequest(url: url).origin == Substring(origin))
    }
}
