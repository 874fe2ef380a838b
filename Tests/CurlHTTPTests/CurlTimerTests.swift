@testable import CurlHTTP
import Testing

/// `CurlTimer` with chosen clock readings.
@Suite struct CurlTimerTests {
    let start = ContinuousClock.now

    @Test func withoutATimerTheLoopSleepsTheLongestWait() {
        var timer = CurlTimer()
        #expect(timer.waitMilliseconds(now: start) == CurlTimer.maxWaitMilliseconds)
        #expect(timer.fire(now: start + .seconds(60)) == false)
    }

    @Test func zeroMeansAtOnceAndFiresOnce() {
        var timer = CurlTimer()
        timer.set(milliseconds: 0, now: start)
        #expect(timer.waitMilliseconds(now: start) == 0)
        #expect(timer.fire(now: start) == true)
        #expect(timer.fire(now: start) == false)
        #expect(timer.deadline == nil)
    }

    @Test func minusOneRemovesTheTimer() {
        var timer = CurlTimer()
        timer.set(milliseconds: 5, now: start)
        timer.set(milliseconds: -1, now: start)
        #expect(timer.deadline == nil)
        #expect(timer.fire(now: start + .seconds(1)) == false)
    }

    @Test func waitIsCappedAndRoundedUp() {
        var timer = CurlTimer()
        timer.set(milliseconds: 250, now: start)
        #expect(timer.waitMilliseconds(now: start) == CurlTimer.maxWaitMilliseconds)
        timer.set(milliseconds: 40, now: start)
        #expect(timer.waitMilliseconds(now: start + .milliseconds(10)) == 30)
        // 30.5 ms left: waking at 30 would be early, so 31.
        #expect(timer.waitMilliseconds(now: start + .microseconds(9_500)) == 31)
        #expect(timer.waitMilliseconds(now: start + .milliseconds(50)) == 0)
    }

    @Test func firesOnlyOnceTheDeadlinePassed() {
        var timer = CurlTimer()
        timer.set(milliseconds: 20, now: start)
        #expect(timer.fire(now: start + .milliseconds(19)) == false)
        #expect(timer.fire(now: start + .milliseconds(20)) == true)
        #expect(timer.fire(now: start + .milliseconds(21)) == false)
    }
}
