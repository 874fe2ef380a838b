import BridgeSupport
import Logging
import StateStore
import Upstreams

/// Every instance's share of the unlink queue (docs/api.md#kakaos-unlink-webhook): takes the events that are due,
/// retries failed steps, takes over an event whose instance died once its lease has passed, keeps the queue's gauges,
/// and deletes what has expired from the store.
public struct UnlinkQueueWorker: Sendable {
    let shared: SharedState
    /// The current features' unlink, or nil while the webhook is off (then nothing is taken; the sweep still runs).
    let unlink: @Sendable () -> KakaoUnlink?
    let logger: Logger
    let interval: Duration

    package init(shared: SharedState, logger: Logger, interval: Duration = .seconds(1), unlink: @escaping @Sendable () -> KakaoUnlink?) {
        self.shared = shared
        self.unlink = unlink
        self.logger = logger
        self.interval = interval
    }

    /// Until cancelled.
    public func run() async {
        var round = 0
        while !Task.isCancelled {
            if let unlink = unlink() {
                await takeDue(unlink)
                if round % 5 == 0 { await updateGauges(unlink) }
            }
            if round % 60 == 0 { _ = try? await shared.store.deleteExpired(now: shared.clock.now()) }
            round += 1
            try? await Task.sleep(for: interval)
        }
    }

    /// One round: what is due now, each event's steps in turn.
    func takeDue(_ unlink: KakaoUnlink) async {
        let events: [UnlinkEvent]
        do {
            events = try await shared.store.claimDue(
                owner: shared.instanceID, now: shared.clock.now(), leaseSeconds: unlink.leaseSeconds, limit: 16
            )
        } catch {
            return  // `UnlinkMarkFollower` reports an unreachable store.
        }
        for event in events {
            _ = await unlink.work(event, context: CallContext(requestID: "unlink-\(event.id)"))
        }
    }

    private func updateGauges(_ unlink: KakaoUnlink) async {
        if let counts = try? await shared.store.queueCounts() { unlink.meters.queue(counts) }
    }
}
