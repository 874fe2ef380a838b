@testable import CurlHTTP
import Testing

/// The inbox's hand-over rules (`CurlThreadInbox.State`) without a curl thread: who gets woken, what is handed over.
@Suite struct CurlThreadInboxStateTests {
    typealias State = CurlThreadInbox.State

    func job(_ id: UInt64) -> Job {
        Job(id: id, request: ClientRequest(url: "http://a.test/"), completion: { _ in })
    }

    func wakeup(_ submission: State.Submission) -> Bool? {
        if case .accepted(let wake) = submission { return wake }
        return nil
    }

    func refusal(_ submission: State.Submission) -> HTTPClientError.Kind? {
        if case .refused(let error) = submission { return error.kind }
        return nil
    }

    @Test func busyCurlThreadIsNotWoken() {
        var state = State()
        #expect(wakeup(state.submit([job(1)], isCancelled: false)) == false)
        #expect(wakeup(state.submit([job(2)], isCancelled: false)) == false)
    }

    @Test func sleepingCurlThreadIsWokenOncePerBurst() {
        var state = State()
        #expect(state.prepareToSleep() == true)
        #expect(wakeup(state.submit([job(1), job(2), job(3)], isCancelled: false)) == true)
        #expect(wakeup(state.submit([job(4)], isCancelled: false)) == false)
        #expect(state.prepareToSleep() == false)
        #expect(state.takeWork().jobs.map(\.id) == [1, 2, 3, 4])
    }

    @Test func takeWorkHandsEverythingOverOnce() {
        var state = State()
        _ = state.submit([job(1), job(2)], isCancelled: false)
        let work = state.takeWork()
        #expect(work.jobs.map(\.id) == [1, 2])
        #expect(work.cancelled.isEmpty)
        #expect(!work.stopping)
        #expect(state.takeWork().jobs.isEmpty)
        #expect(state.live == [1, 2])
        #expect(state.prepareToSleep() == true)
    }

    @Test func queuedJobIsDroppedOnCancel() {
        var state = State()
        _ = state.submit([job(1), job(2)], isCancelled: false)
        guard case .dropped(let dropped) = state.cancel(1) else {
            Issue.record("a queued job is dropped on the caller's side")
            return
        }
        #expect(dropped.id == 1)
        #expect(state.live == [2])
        #expect(state.takeWork().jobs.map(\.id) == [2])
    }

    @Test func jobOnTheCurlThreadIsCancelledThere() {
        var state = State()
        _ = state.submit([job(1)], isCancelled: false)
        _ = state.takeWork()
        #expect(state.prepareToSleep() == true)
        guard case .handedToCurlThread = state.cancel(1) else {
            Issue.record("a taken job is cancelled by the curl thread")
            return
        }
        #expect(!state.curlThreadSleeping)
        #expect(state.prepareToSleep() == false)
        #expect(state.takeWork().cancelled == [1])
        state.finished(1)
        #expect(state.live.isEmpty)
        #expect(state.prepareToSleep() == true)
    }

    @Test func finishedOrUnknownJobCannotBeCancelled() {
        var state = State()
        _ = state.submit([job(1)], isCancelled: false)
        _ = state.takeWork()
        state.finished(1)
        guard case .none = state.cancel(1), case .none = state.cancel(42) else {
            Issue.record("nothing to cancel")
            return
        }
        #expect(state.cancelled.isEmpty)
    }

    @Test func cancelledCallerIsRefusedAtOnce() {
        var state = State()
        #expect(refusal(state.submit([job(1)], isCancelled: true)) == .cancelled)
        #expect(state.queued.isEmpty && state.live.isEmpty)
    }

    @Test func shutdownWakesOnceAndRefusesLaterWork() {
        var state = State()
        #expect(state.shutdown() == true)
        #expect(state.shutdown() == false)
        #expect(state.prepareToSleep() == false)
        #expect(refusal(state.submit([job(1)], isCancelled: false)) == .shutdown)
        #expect(state.takeWork().stopping)
    }

    @Test func closeReturnsLateArrivalsAndRefusesEverythingAfter() {
        var state = State()
        _ = state.submit([job(1)], isCancelled: false)
        _ = state.takeWork()
        _ = state.submit([job(2)], isCancelled: false)
        #expect(state.close().map(\.id) == [2])
        #expect(state.live.isEmpty)
        #expect(refusal(state.submit([job(3)], isCancelled: false)) == .shutdown)
        guard case .none = state.cancel(1) else {
            Issue.record("a closed inbox has nothing to cancel")
            return
        }
        #expect(state.shutdown() == false)
    }
}
