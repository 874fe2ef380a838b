@testable import CurlHTTP
import Testing

/// `HandlePool` with plain values: no curl.
@Suite struct HandlePoolTests {
    struct MakeFailed: Error, Equatable {}

    @Test func emptyPoolMakesAHandle() {
        var pool = HandlePool<Int>(maxIdle: 4)
        var made = 0
        let handle = pool.take { made += 1; return 7 }
        #expect(handle == 7)
        #expect(made == 1)
        #expect(pool.count == 0)
    }

    @Test func returnedHandlesAreReusedLastInFirstOut() {
        var pool = HandlePool<Int>(maxIdle: 4)
        #expect(pool.giveBack(1) == true)
        #expect(pool.giveBack(2) == true)
        var made = 0
        let make = { () -> Int in made += 1; return 99 }
        #expect(pool.take(orMake: make) == 2)
        #expect(pool.take(orMake: make) == 1)
        #expect(made == 0)
        #expect(pool.take(orMake: make) == 99)
        #expect(made == 1)
    }

    @Test func fullPoolDropsWhatIsGivenBack() {
        var pool = HandlePool<Int>(maxIdle: 2)
        #expect(pool.giveBack(1) == true)
        #expect(pool.giveBack(2) == true)
        #expect(pool.giveBack(3) == false)
        #expect(pool.count == 2)
        #expect(pool.take { 0 } == 2)
    }

    @Test func poolOfNothingKeepsNothing() {
        var pool = HandlePool<Int>(maxIdle: -1)
        #expect(pool.maxIdle == 0)
        #expect(pool.giveBack(1) == false)
        #expect(pool.take { 5 } == 5)
    }

    @Test func failedMakeThrowsItsErrorAndLeavesThePoolAlone() throws {
        var pool = HandlePool<Int>(maxIdle: 2)
        #expect(throws: MakeFailed()) {
            _ = try pool.take { () throws(MakeFailed) -> Int in throw MakeFailed() }
        }
        #expect(pool.count == 0)
        #expect(pool.giveBack(1) == true)
        #expect(try pool.take { () throws(MakeFailed) -> Int in throw MakeFailed() } == 1)
    }

    @Test func removeAllLetsGoOfEveryHandle() {
        final class Handle {
            let freed: () -> Void
            init(freed: @escaping () -> Void) { self.freed = freed }
            deinit { freed() }
        }
        var freed = 0
        var pool = HandlePool<Handle>(maxIdle: 8)
        for _ in 0..<3 { pool.giveBack(Handle { freed += 1 }) }
        #expect(freed == 0)
        pool.removeAll()
        #expect(pool.count == 0)
        #expect(freed == 3)
    }
}
