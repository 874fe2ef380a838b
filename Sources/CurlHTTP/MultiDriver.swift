import CCurl

/// The loop-thread half of the client: owns the multi handle's transfers and the pool of easy handles.
/// Lives and dies on the one thread `MultiLoop` starts, so none of its state is shared.
final class MultiDriver {
    private struct Transfer {
        let job: Job
        let easy: EasyHandle
    }

    /// Caps how long a lost wakeup can delay a job; curl shortens the wait further for its own timers.
    private static let pollMilliseconds: Int32 = 100
    /// Idle handles kept for reuse; beyond this they are freed (connections live in the multi handle's cache).
    private static let maxIdleHandles = 256

    private let loop: MultiLoop
    private let multi: UnsafeMutableRawPointer
    private let maxResponseBytes: Int
    private var idle: [EasyHandle] = []
    private var active: [UnsafeMutableRawPointer: Transfer] = [:]
    private var activeByID: [UInt64: UnsafeMutableRawPointer] = [:]

    init(loop: MultiLoop, multi: UnsafeMutableRawPointer, maxResponseBytes: Int) {
        self.loop = loop
        self.multi = multi
        self.maxResponseBytes = maxResponseBytes
    }

    func run() {
        while true {
            let work = loop.takeWork()
            if work.stopping {
                for job in work.jobs { loop.finished(job, .failure(MultiLoop.shutdownError)) }
                break
            }
            for job in work.jobs { start(job) }
            for id in work.cancelled { abort(id, MultiLoop.cancelledError) }
            do {
                var running: Int32 = 0
                try CurlCall.check(curl_multi_perform(multi, &running), "curl_multi_perform")
                collectFinished()
                try CurlCall.check(curl_multi_poll(multi, nil, 0, Self.pollMilliseconds, nil), "curl_multi_poll")
            } catch {
                // The multi handle's state is unknown: fail what is in flight rather than hang it, then carry on.
                failAll(error)
            }
        }
        failAll(MultiLoop.shutdownError)
        for job in loop.close() { job.complete(.failure(MultiLoop.shutdownError)) }
        idle = []
        curl_multi_cleanup(multi)
    }

    private func start(_ job: Job) {
        let easy: EasyHandle
        do throws(HTTPClientError) {
            if let pooled = idle.popLast() {
                easy = pooled
            } else {
                easy = try EasyHandle()
            }
        } catch {
            loop.finished(job, .failure(error))
            return
        }
        do {
            try easy.prepare(job.request, maxBytes: maxResponseBytes)
            try CurlCall.check(curl_multi_add_handle(multi, easy.raw), "curl_multi_add_handle")
        } catch {
            recycle(easy)
            loop.finished(job, .failure(error))
            return
        }
        active[easy.raw] = Transfer(job: job, easy: easy)
        activeByID[job.id] = easy.raw
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard kb_curl_msg_kind(message) == CURLMSG_DONE, let raw = kb_curl_msg_easy(message) else { continue }
            let code = kb_curl_msg_result(message)
            guard let transfer = detach(raw) else { continue }
            loop.finished(transfer.job, transfer.easy.finish(code))
        }
    }

    private func abort(_ id: UInt64, _ error: HTTPClientError) {
        guard let raw = activeByID[id], let transfer = detach(raw) else { return }
        loop.finished(transfer.job, .failure(error))
    }

    private func failAll(_ error: HTTPClientError) {
        for raw in Array(active.keys) {
            guard let transfer = detach(raw) else { continue }
            loop.finished(transfer.job, .failure(error))
        }
    }

    /// Takes the handle out of the multi; it goes back to the pool only if curl let go of it cleanly.
    private func detach(_ raw: UnsafeMutableRawPointer) -> Transfer? {
        guard let transfer = active.removeValue(forKey: raw) else { return nil }
        activeByID[transfer.job.id] = nil
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
