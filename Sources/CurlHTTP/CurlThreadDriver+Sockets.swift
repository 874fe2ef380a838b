import CCurl

/// **Curl thread only**: the multi_socket plumbing. Curl tells us which sockets to watch and when its timer is due
/// (through the callbacks installed here); we tell curl which sockets are ready and when the timer fired.
extension CurlThreadDriver {
    func installCallbacks() throws(HTTPClientError) {
        let multi = multi.raw
        let context = Unmanaged.passUnretained(self).toOpaque()
        try CurlCall.check(kb_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context), "curl_multi_setopt(CURLMOPT_SOCKETDATA)")
        try CurlCall.check(
            kb_curl_multi_setopt_socket_callback(multi) { _, socket, what, context, _ in
                Unmanaged<CurlThreadDriver>.fromOpaque(context!).takeUnretainedValue().curlWantsWatch(socket, what)
                return 0
            },
            "curl_multi_setopt(CURLMOPT_SOCKETFUNCTION)"
        )
        try CurlCall.check(kb_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context), "curl_multi_setopt(CURLMOPT_TIMERDATA)")
        try CurlCall.check(
            kb_curl_multi_setopt_timer_callback(multi) { _, milliseconds, context in
                Unmanaged<CurlThreadDriver>.fromOpaque(context!).takeUnretainedValue().timer.set(milliseconds: milliseconds)
                return 0
            },
            "curl_multi_setopt(CURLMOPT_TIMERFUNCTION)"
        )
    }

    /// After this curl no longer calls into the driver: the multi handle is freed while the driver is being freed, and
    /// closing its cached connections then would otherwise call back into it.
    func removeCallbacks() {
        let multi = multi.raw
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

    /// Lets curl act on one ready socket.
    func socketAction(_ event: SocketPoller.Event) throws(HTTPClientError) {
        var mask: Int32 = 0
        if event.readable { mask |= kb_curl_cselect_in() }
        if event.writable { mask |= kb_curl_cselect_out() }
        if event.failed { mask |= kb_curl_cselect_err() }
        var running: Int32 = 0
        let code = curl_multi_socket_action(multi.raw, event.descriptor, mask, &running)
        // A socket that curl let go of earlier in this turn: its event is stale, not a failure.
        guard code != CURLM_BAD_SOCKET else { return }
        try CurlCall.check(code, "curl_multi_socket_action")
    }

    /// Lets curl act on its timer.
    func socketAction(timeout: Void) throws(HTTPClientError) {
        var running: Int32 = 0
        try CurlCall.check(curl_multi_socket_action(multi.raw, kb_curl_socket_timeout(), 0, &running), "curl_multi_socket_action")
    }
}
