/// Starts the one thread that drives curl. Runs on the thread that makes the client, once per client.
enum CurlThread {
    /// Creates the multi handle, the wake signal and the poller here, so that a failure is known at once and every
    /// later call fails with it; then starts the thread, which runs a `CurlThreadDriver` until the inbox is shut down.
    static func start(maxResponseBytes: Int, maxConnectionsPerHost: Int) -> CurlThreadInbox {
        let multi: CurlMultiHandle
        let wake: WakeSignal
        let poller: SocketPoller
        do throws(HTTPClientError) {
            if let failure = CurlGlobal.initialization { throw failure }
            multi = try CurlMultiHandle(maxConnectionsPerHost: maxConnectionsPerHost)
            wake = try WakeSignal()
            poller = try SocketPoller(wake: wake)
        } catch {
            return CurlThreadInbox(startupError: error)
        }
        let inbox = CurlThreadInbox(wakeSignal: wake)
        // From now on only the new thread touches the multi handle and the poller.
        let handoff = Handoff(multi: multi, poller: poller)
        do throws(HTTPClientError) {
            try DetachedThread.start(name: "curl-multi") {
                CurlThreadDriver(
                    inbox: inbox, multi: handoff.multi, poller: handoff.poller,
                    maxResponseBytes: maxResponseBytes, maxPerOrigin: maxConnectionsPerHost
                ).run()
            }
        } catch {
            return CurlThreadInbox(startupError: error)
        }
        return inbox
    }

    /// Moves the curl-thread-only objects into the thread that will own them.
    private struct Handoff: @unchecked Sendable {
        let multi: CurlMultiHandle
        let poller: SocketPoller
    }
}
