import CCurl

/// **Curl thread only**: starting, finishing and aborting transfers, and passing freed origin slots on.
extension CurlThreadDriver {
    /// Hands `job` to curl, or queues it behind its origin's transfers.
    func start(_ job: Job) {
        let origin = job.request.origin
        if origins.admit(job, origin: origin) { attachOrPassOn(job, origin: origin) }
    }

    /// A transfer of `origin` ended: the oldest job waiting for it goes next.
    func slotFreed(_ origin: Substring) {
        if let next = origins.release(origin) { attachOrPassOn(next, origin: origin) }
    }

    /// `job` holds a slot of `origin`. If it fails before reaching curl, the slot goes to the next waiting job.
    private func attachOrPassOn(_ job: Job, origin: Substring) {
        var next: Job? = job
        while let job = next, !attach(job, origin: origin) {
            next = origins.release(origin)
        }
    }

    /// `false` when the job failed (and was completed) before reaching curl.
    private func attach(_ job: Job, origin: Substring) -> Bool {
        // The caller's timeout started when it submitted; time spent queued here counts against it.
        var request = job.request
        request.timeout -= ContinuousClock.now - job.submitted
        guard request.timeout > .zero else {
            inbox.finished(job, .failure(.queuedTooLong))
            return false
        }
        let easy: EasyHandle
        do throws(HTTPClientError) {
            easy = try handles.take(orMake: EasyHandle.init)
        } catch {
            inbox.finished(job, .failure(error))
            return false
        }
        do {
            try easy.prepare(request, maxBytes: maxResponseBytes)
            try CurlCall.check(curl_multi_add_handle(multi.raw, easy.raw), "curl_multi_add_handle")
        } catch {
            handles.giveBack(easy)
            inbox.finished(job, .failure(error))
            return false
        }
        active[easy.raw] = Transfer(job: job, easy: easy, origin: origin)
        activeByID[job.id] = easy.raw
        return true
    }

    /// Reports every transfer curl has finished, with one inbox lock for all of them, then fills their slots.
    func collectFinished() {
        var remaining: Int32 = 0
        var completions: [(Job, Job.Outcome)] = []
        var freed: [Substring] = []
        while let message = curl_multi_info_read(multi.raw, &remaining) {
            guard kb_curl_msg_kind(message) == CURLMSG_DONE, let raw = kb_curl_msg_easy(message) else { continue }
            let code = kb_curl_msg_result(message)
            guard let transfer = detach(raw) else { continue }
            completions.append((transfer.job, transfer.easy.finish(code)))
            freed.append(transfer.origin)
        }
        inbox.finished(completions)
        for origin in freed { slotFreed(origin) }
    }

    /// Fails job `id`, whether it waits for a slot or is on the wire; nothing if it already finished.
    func abort(_ id: UInt64, _ error: HTTPClientError) {
        if let job = origins.removeWaiting(id: id) {
            inbox.finished(job, .failure(error))
            return
        }
        guard let raw = activeByID[id], let transfer = detach(raw) else { return }
        inbox.finished(transfer.job, .failure(error))
        slotFreed(transfer.origin)
    }

    /// Fails what curl holds; queued jobs keep their place and start once slots free up.
    func failAll(_ error: HTTPClientError) {
        var freed: [Substring] = []
        for raw in Array(active.keys) {
            guard let transfer = detach(raw) else { continue }
            inbox.finished(transfer.job, .failure(error))
            freed.append(transfer.origin)
        }
        for origin in freed { slotFreed(origin) }
    }

    /// Fails every job still waiting for a slot.
    func failWaiting(_ error: HTTPClientError) {
        for job in origins.drainWaiting() { inbox.finished(job, .failure(error)) }
    }

    /// Takes the handle out of the multi; it goes back to the pool only if curl let go of it cleanly. The transfer's
    /// origin slot stays taken until the caller passes it to `slotFreed`.
    private func detach(_ raw: UnsafeMutableRawPointer) -> Transfer? {
        guard let transfer = active.removeValue(forKey: raw) else { return nil }
        activeByID[transfer.job.id] = nil
        do {
            try CurlCall.check(curl_multi_remove_handle(multi.raw, raw), "curl_multi_remove_handle")
            handles.giveBack(transfer.easy)
        } catch {
            // Dropping it frees it in EasyHandle.deinit.
        }
        return transfer
    }
}
