/// **Curl thread only.** Drives the multi handle: takes work from the inbox, hands jobs to curl (at most
/// `maxPerOrigin` per origin, the rest wait in `origins`), lets curl act on ready sockets and its timer, and reports
/// finished transfers back through the inbox.
///
/// Made and run by the thread `CurlThread.start` starts, and dropped when that thread ends; none of its state is
/// shared, so none of it is locked. Its parts: the loop (here), transfers (`CurlThreadDriver+Transfers.swift`) and
/// curl's socket and timer callbacks (`CurlThreadDriver+Sockets.swift`).
final class CurlThreadDriver {
    /// A job that curl is working on, with the easy handle it rides on.
    struct Transfer {
        let job: Job
        let easy: EasyHandle
        let origin: Substring
    }

    /// Idle handles kept for reuse; beyond this they are freed (connections live in the multi handle's cache).
    static let maxIdleHandles = 256

    let inbox: CurlThreadInbox
    let multi: CurlMultiHandle
    let poller: SocketPoller
    let maxResponseBytes: Int
    /// When curl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` called next (its timer callback sets it).
    var timer = CurlTimer()
    /// Jobs admitted to curl per origin, and those waiting for a slot.
    var origins: OriginQueue<Job>
    var handles = HandlePool<EasyHandle>(maxIdle: maxIdleHandles)
    var active: [UnsafeMutableRawPointer: Transfer] = [:]
    var activeByID: [UInt64: UnsafeMutableRawPointer] = [:]

    init(inbox: CurlThreadInbox, multi: CurlMultiHandle, poller: SocketPoller, maxResponseBytes: Int, maxPerOrigin: Int) {
        self.inbox = inbox
        self.multi = multi
        self.poller = poller
        self.maxResponseBytes = maxResponseBytes
        self.origins = OriginQueue(maxPerOrigin: maxPerOrigin)
    }

    /// The thread's whole life: turns of the loop until the inbox is shut down, then every pending job fails.
    func run() {
        do {
            try installCallbacks()
        } catch {
            removeCallbacks()
            for job in inbox.close() { job.complete(.failure(error)) }
            return
        }
        while true {
            let work = inbox.takeWork()
            if work.stopping {
                for job in work.jobs { inbox.finished(job, .failure(.clientShutDown)) }
                break
            }
            for job in work.jobs { start(job) }
            for id in work.cancelled { abort(id, .taskCancelled) }
            do {
                // Work that arrived meanwhile is started at once instead of after a wait (its wakeup was skipped).
                let wait = inbox.prepareToSleep() ? timer.waitMilliseconds() : 0
                var ready: [SocketPoller.Event] = []
                if poller.wait(milliseconds: wait, { ready.append($0) }) { inbox.drainWakeups() }
                for event in ready { try socketAction(event) }
                if timer.fire() { try socketAction(timeout: ()) }
                collectFinished()
            } catch {
                // The multi handle's state is unknown: fail what is in flight rather than hang it, then carry on.
                failAll(error)
            }
        }
        failAll(.clientShutDown)
        failWaiting(.clientShutDown)
        for job in inbox.close() { job.complete(.failure(.clientShutDown)) }
        // The multi handle is freed with this driver and closes its cached connections then: curl must not call back.
        removeCallbacks()
        handles.removeAll()
    }
}
