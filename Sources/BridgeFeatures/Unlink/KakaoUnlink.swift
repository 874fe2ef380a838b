import BridgeSupport
import Logging
import OpenSSLCrypto
import StateStore
import Upstreams

/// Kakao's unlink webhook (docs/api.md#kakaos-unlink-webhook): who may call it, and what happens before it answers.
/// (1) every cached verification of the person is forgotten and the unlink remembered for a day, (4) the event recorded
/// durably; steps 2 and 3 (the Firebase action, the backend) are `AccountActions.work`, started at once and retried from
/// the queue. Replaying a callback does no harm: each step leaves the same state twice.
///
/// Present exactly when `kakao.admin_key` is set.
package final class KakaoUnlink: Sendable {

    /// One unlink as Kakao reported it.
    package struct Event: Sendable {
        package var kakaoID: Int64
        package var referrerType: String?

        package init(kakaoID: Int64, referrerType: String?) {
            self.kakaoID = kakaoID
            self.referrerType = referrerType
        }
    }

    /// `kakao.app_id`: the webhook's `app_id` must be ours.
    package let appID: Int64
    /// `kakao.admin_key`: what Kakao sends as `Authorization: KakaoAK`.
    package let adminKey: [UInt8]
    /// `kakao.unlink_deadline_ms`: Kakao counts anything slower than 3 s as a failure.
    package let deadline: Duration
    package let actions: AccountActions
    let shared: SharedState
    let logger: Logger
    let clock: UnixClock

    init(appID: Int64, adminKey: [UInt8], deadline: Duration, actions: AccountActions, shared: SharedState, clock: UnixClock, logger: Logger) {
        self.appID = appID
        self.adminKey = adminKey
        self.deadline = deadline
        self.actions = actions
        self.shared = shared
        self.clock = clock
        self.logger = logger
    }

    package var meters: UnlinkMeters { actions.meters }
    package var action: AccountActions.UnlinkAction { actions.unlinkAction }

    /// Before the webhook answers (docs/api.md#kakaos-unlink-webhook): the event is recorded durably, leased to this
    /// instance, and steps 1 and 4 take effect: the mark in the store for every instance, and here at once. A store that
    /// cannot record it is 503 `state_unavailable`: an event that cannot be kept is never acknowledged.
    package func accept(_ event: Event) async throws(Problem) -> AccountEvent {
        let now = clock.now()
        let queued = actions.newEvent(
            id: Base64URL.encode(SecureRandom.bytes(count: 16)), kakaoID: event.kakaoID, reason: event.referrerType ?? "",
            eventType: nil, now: now
        )
        try shared.health.require()
        do {
            // Within the webhook's deadline: Kakao wants its answer within 3 s, even from a store that hangs.
            try await shared.withStore("record unlink", within: deadline) { store throws(StateStoreError) in
                try await store.enqueue(queued)
                try await store.setUnlinkMark(kakaoID: event.kakaoID, at: now)
            }
        } catch {
            logger.error("unlink webhook: the state store cannot record the event", metadata: [
                "kakao_id": .stringConvertible(event.kakaoID), "reason": "\(error.description)",
            ])
            throw error.problem
        }
        actions.forgetLocally(event.kakaoID, endingSessionsAt: now)
        return queued
    }

    /// Steps 2 and 3 (`AccountActions.work`).
    package func work(_ event: AccountEvent, context: CallContext) async -> AccountActions.EventOutcome {
        await actions.work(event, context: context)
    }
}
