import CCurl

/// The loop-thread half of the client: owns the multi handle's transfers and the pool of easy handles.
/// Lives and dies on the one thread `MultiLoop` starts, so none of its state is shared.
///
/// At most `maxPerOrigin` transfers per origin are handed to curl; the rest wait here, in order. Left to curl, a burst of
/// a thousand logins attaches two thousand easy handles (each with its own buffers) that wait for a connection in no
/// particular order, which costs tens of megabytes and lets unlucky calls run into their deadlines.
final class MultiDriver {
    private struct Transfer {
        let job: Job
        let easy: EasyHandle
        let origin: Substring
    }

    /// Jobs waiting for a free slot of one origin, oldest first.
    private struct Queue {
        var jobs: [Job] = []
        var head = 0

        var isEmpty: Bool { head == jobs.count }

        mutating func push(_ job: Job) { jobs.append(job) }

        mutating func pop() -> Job? {
            guard head < jobs.count else { return nil }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= jobs.count {
                // Under a steady backlog the queue never runs dry: popped jobs (and what their requests hold) must
                // still be let go of.
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }

        mutating func remove(id: UInt64) -> Job? {
            guard let index = jobs[head...].firstIndex(where: { $0.id == id }) else { return nil }
            return jobs.remove(at: index)
        }

        mutating func drain() -> [Job] {
            defer { self = Queue() }
            return Array(jobs[head...])
        }
    }

    /// Caps how long a lost wakeup can delay a job; curl's own timer shortens the wait further.
    private static let pollMilliseconds: Int32 = 100
    /// Idle handles kept for reuse; beyond this they are freed (connections live in the multi handle's cache).
    private static let maxIdleHandles = 256

    private let loop: MultiLoop
    private let multi: UnsafeMutableRawPointer
    private let poller: SocketPoller
    /// When curl wants `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` called next (its timer callback sets it).
    private var timerDeadline: ContinuousClock.Instant?
    private let maxResponseBytes: Int
    private let maxPerOrigin: Int
    private var idle: [EasyHandle] = []
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var activeByID: [UInt64: UnsafeMutableRawPointer] = [:]
    private var activePerOrigin: [Substring: Int] = [:]
    private var waiting: [Substring: Queue] = [:]
    private var waitingOrigin: [UInt64: Substring] = [:]

    init(loop: MultiLoop, multi: UnsafeMutableRawPointer, poller: SocketPoller, maxResponseBytes: Int, maxPerOrigin: Int) {
        self.loop = loop
        self.multi = multi
        self.poller = poller
        self.maxResponseBytes = maxResponseBytes
        self.maxPerOrigin = max(1, maxPerOrigin)
    }

    func run() {
        do {
            try installCallbacks()
        } catch {
            for job in loop.close() { job.complete(.failure(error)) }
            return
        }
        while true {
            let work = loop.takeWork()
            if work.stopping {
                for job in work.jobs { loop.finished(job, .failure(MultiLoop.shutdownError)) }
                break
            }
            for job in work.jobs { start(job) }
            for id in work.cancelled { abort(id, MultiLoop.cancelledError) }
            do {
                // Work that arrived meanwhile is started at once instead of after a wait (its wakeup was skipped).
                let wait = loop.prepareToWait() ? waitMilliseconds() : 0
                var ready: [SocketPoller.Event] = []
                if poller.wait(milliseconds: wait, { ready.append($0) }) { loop.drainWakeups() }
                for event in ready { try socketAction(event) }
                if let deadline = timerDeadline, deadline <= .now {
                    timerDeadline = nil
                    try socketAction(timeout: ())
                }
                collectFinished()
            } catch {
                // The multi handle's state is unknown: fail what is in flight rather than hang it, then carry on.
                failAll(error)
            }
        }
        failAll(MultiLoop.shutdownError)
        failWaiting(MultiLoop.shutdownError)
        for job in loop.close() { job.complete(.failure(MultiLoop.shutdownError)) }
        // The multi handle outlives this driver (it is freed in `MultiLoop.deinit`): it must not call back into it.
        removeCallbacks()
        idle = []
    }

    // MARK: multi_socket plumbing

    private func installCallbacks() throws(HTTPClientError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try CurlCall.check(kb_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context), "curl_multi_setopt(CURLMOPT_SOCKETDATA)")
        try CurlCall.check(
            kb_curl_multi_setopt_socket_callback(multi) { _, socket, what, context, _ in
                Unmanaged<MultiDriver>.fromOpaque(context!).takeUnretainedValue().curlWantsWatch(socket, what)
                return 0
            },
            "curl_multi_setopt(CURLMOPT_SOCKETFUNCTION)"
        )
        try CurlCall.check(kb_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context), "curl_multi_setopt(CURLMOPT_TIMERDATA)")
        try CurlCall.check(
            kb_curl_multi_setopt_timer_callback(multi) { _, milliseconds, context in
                Unmanaged<MultiDriver>.fromOpaque(context!).takeUnretainedValue().curlWantsTimer(milliseconds)
                return 0
            },
            "curl_multi_setopt(CURLMOPT_TIMERFUNCTION)"
        )
    }

    private func removeCallbacks() {
        _ = kb_curl_multi_setopt_socket_callback(multi, nil)
        _ = kb_curl_multi_setopt_timer_callback(multi, nil)
        _ = kb_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, nil)
        _ = kb_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, nil)
    }

    private func curlWantsWatch(_ socket: Int32, _ what: Int32) {
        let remove = what == kb_curl_poll_remove()
        poller.watch(
            socket,
            readable: !remove && (what == kb_curl_poll_in() || what == kb_curl_poll_inout()),
            writable: !remove && (what == kb_curl_poll_out() || what == kb_curl_poll_inout())
        )
    }

    /// -1 removes the timer; 0 asks for a call as soon as possible.
    private func curlWantsTimer(_ milliseconds: Int) {
        timerDeadline = milliseconds < 0 ? nil : .now + .milliseconds(milliseconds)
    }

    /// How long the loop may sleep: until curl's timer, at most `pollMilliseconds`, rounded up so it never wakes early.
    private func waitMilliseconds() -> Int32 {
        guard let deadline = timerDeadline else { return Self.pollMilliseconds }
        let (seconds, attoseconds) = (deadline - .now).components
        guard seconds >= 0, seconds < Int64(Self.pollMilliseconds) else { return seconds < 0 ? 0 : Self.pollMilliseconds }
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(max(0, min(Int64(Self.pollMilliseconds), millis)))
    }

    private func socketAction(_ event: SocketPoller.Event) throws(HTTPClientError) {
        var mask: Int32 = 0
        if event.readable { mask |= kb_curl_cselect_in() }
        if event.writable { mask |= kb_curl_cselect_out() }
        if event.failed { mask |= kb_curl_cselect_err() }
        var running: Int32 = 0
        let code = curl_multi_socket_action(multi, event.descriptor, mask, &running)
        // A socket that curl let go of earlier in this turn: its event is stale, not a failure.
        guard code != CURLM_BAD_SOCKET else { return }
        try CurlCall.check(code, "curl_multi_socket_action")
    }

    private func socketAction(timeout: Void) throws(HTTPClientError) {
        var running: Int32 = 0
        try CurlCall.check(curl_multi_socket_action(multi, kb_curl_socket_timeout(), 0, &running), "curl_multi_socket_action")
    }

    /// Hands `job` to curl, or queues it behind its origin's transfers.
    private func start(_ job: Job) {
        let origin = Self.origin(of: job.request.url)
        guard activePerOrigin[origin, default: 0] < maxPerOrigin else {
            waiting[origin, default: Queue()].push(job)
            waitingOrigin[job.id] = origin
            return
        }
        attach(job, origin: origin)
    }

    /// `false` when the job failed before reaching curl (its slot stays free).
    @discardableResult
    private func attach(_ job: Job, origin: Substring) -> Bool {
        // The caller's timeout started when it submitted; time spent queued here counts against it.
        var request = job.request
        request.timeout -= ContinuousClock.now - job.submitted
        guard request.timeout > .zero else {
            loop.finished(job, .failure(MultiDriver.queuedTooLong))
            return false
        }
        let easy: EasyHandle
        do throws(HTTPClientError) {
            if let pooled = idle.popLast() {
                easy = pooled
            } else {
                easy = try EasyHandle()
            }
        } catch {
            loop.finished(job, .failure(error))
            return false
        }
        do {
            try easy.prepare(request, maxBytes: maxResponseBytes)
            try CurlCall.check(curl_multi_add_handle(multi, easy.raw), "curl_multi_add_handle")
        } catch {
            recycle(easy)
            loop.finished(job, .failure(error))
            return false
        }
        active[easy.raw] = Transfer(job: job, easy: easy, origin: origin)
        activeByID[job.id] = easy.raw
        activePerOrigin[origin, default: 0] += 1
        return true
    }

    /// A slot of `origin` came free: the oldest job waiting for it goes next.
    private func startNext(_ origin: Substring) {
        guard var queue = waiting.removeValue(forKey: origin) else { return }
        while let next = queue.pop() {
            waitingOrigin[next.id] = nil
            if attach(next, origin: origin) { break }
        }
        if !queue.isEmpty { waiting[origin] = queue }
    }

    /// `scheme://authority` of a URL: the unit curl keeps connections for.
    static func origin(of url: String) -> Substring {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return Substring(url) }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return url[url.startIndex..<end]
    }

    static let queuedTooLong = HTTPClientError(
        kind: .timeout, call: "curl_multi_add_handle", message: "the deadline passed while waiting for a connection"
    )

    private func collectFinished() {
        var remaining: Int32 = 0
        var completions: [(Job, Job.Outcome)] = []
        var freed: [Substring] = []
        while let message = curl_multi_info_read(multi, &remaining) {
            guard kb_curl_msg_kind(message) == CURLMSG_DONE, let raw = kb_curl_msg_easy(message) else { continue }
            let code = kb_curl_msg_result(message)
            guard let transfer = detach(raw) else { continue }
            completions.append((transfer.job, transfer.easy.finish(code)))
            freed.append(transfer.origin)
        }
        loop.finished(completions)
        for origin in freed { startNext(origin) }
    }

    private func abort(_ id: UInt64, _ error: HTTPClientError) {
        if let origin = waitingOrigin.removeValue(forKey: id), var queue = waiting[origin], let job = queue.remove(id: id) {
            waiting[origin] = queue.isEmpty ? nil : queue
            loop.finished(job, .failure(error))
            return
        }
        guard let raw = activeByID[id], let transfer = detach(raw) else { return }
        loop.finished(transfer.job, .failure(error))
        startNext(transfer.origin)
    }

    /// Fails what curl holds; queued jobs keep their place and start once slots free up.
    private func failAll(_ error: HTTPClientError) {
        var freed: [Substring] = []
        for raw in Array(active.keys) {
            guard let transfer = detach(raw) else { continue }
            loop.finished(transfer.job, .failure(error))
            freed.append(transfer.origin)
        }
        for origin in freed { startNext(origin) }
    }

    private func failWaiting(_ error: HTTPClientError) {
        for origin in Array(waiting.keys) {
            for job in waiting[origin]?.drain() ?? [] { loop.finished(job, .failure(error)) }
        }
        waiting = [:]
        waitingOrigin = [:]
    }

    /// Takes the handle out of the multi; it goes back to the pool only if curl let go of it cleanly.
    private func detach(_ raw: UnsafeMutableRawPointer) -> Transfer? {
        guard let transfer = active.removeValue(forKey: raw) else { return nil }
        activeByID[transfer.job.id] = nil
        activePerOrigin[transfer.origin, default: 1] -= 1
        if activePerOrigin[transfer.origin] == 0 { activePerOrigin[transfer.origin] = nil }
        do {
            try CurlCall.check(curl_multi_remove_handle(multi, raw), "curl_multi_remove_handle")
            recycle(transfer.easy)
        } catch {
            // Dropping it frees it in EasyHandle.deinit.
        }
        return transfer
    }

    private func recycle(_ easy: EasyHandle) {
        if idle.count < Self.maxIdleHandles { idle.append(easy) }
    }
}
