import BridgeSupport
import Logging
import StateStore
import Upstreams

/// Every instance's share of the queue of unlink and security events (docs/api.md#kakaos-unlink-webhook,
/// docs/api.md#kakaos-security-events): takes the events that are due,
/// retries failed steps, takes over an event whose instance died once its lease has passed, keeps the queue's gauges,
/// and deletes what has expired from the store.
public struct AccountEventWorker: Sendable {
    let shared: SharedState
    /// The current features' account actions, or nil while the unlink webhook and the security events are both off (then
    /// nothing is taken; the sweep still runs).
    let actions: @Sendable () -> AccountActions?
    let logger: Logger
    let interval: Duration

    package init(shared: SharedState, logger: Logger, interval: Duration = .seconds(1), actions: @escaping @Sendable () -> AccountActions?) {
        self.shared = shared
        self.actions = actions
        self.logger = logger
        self.interval = interval
    }

    /// Until cancelled.
    public func run() async {
        var round = 0
        while !Task.isCancelled {
            if let actions = actions() {
                await takeDue(actions)
                if round % 5 == 0 { await updateGauges(actions) }
            }
            if round % 60 == 0 { _ = try? await shared.store.deleteExpired(now: shared.clock.now()) }
            round += 1
            try? await Task.sleep(for: interval)
        }
    }

    /// One round: what is due now, each event's steps in turn.
    func takeDue(_ actions: AccountActions) async {
        let events: [AccountEvent]
        do {
            events = try await shared.store.claimDue(
                owner: shared.instanceID, now: shared.clock.now(), leaseSeconds: actions.leaseSeconds, limit: 16
            )
        } catch {
            return  // `UnlinkMarkFollower` reports an unreachable store.
        }
        for event in events {
            _ = await actions.work(event, context: CallContext(requestID: "unlink-\(event.id)"))
        }
    }

    private func updateGauges(_ actions: AccountActions) async {
        if let counts = try? await shared.store.queueCounts() { actions.meters.queue(counts) }
    }
}
