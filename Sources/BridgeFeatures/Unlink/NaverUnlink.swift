import BridgeSupport
import Logging
import OpenSSLCrypto
import StateStore
import Upstreams

/// Naver's unlink callback (docs/api.md#navers-unlink-callback): who may call it, and what happens before it answers.
/// Checked (`NaverUnlinkCallback`: signature, client id, timestamp, then the id decrypted), used once fleet-wide (the
/// signature is remembered as a nonce until it is stale, so a replayed callback records nothing), recorded durably in
/// the queue of Kakao's unlinks with the person's mark; then Kakao's unlink steps (`AccountActions.work`:
/// `kakao.unlink_action` on `naver:<id>`, and the backend's notice), retried from the queue. Naver never resends, so the
/// callback is answered 204 only once the event is in the store.
///
/// Present exactly when `naver.client_id` and `naver.client_secret` are set.
package final class NaverUnlink: Sendable {

    /// The one detail of every refusal: it names no check.
    package static let refusedDetail = "The Naver unlink callback could not be verified."

    let callback: NaverUnlinkCallback
    package let actions: AccountActions
    /// `kakao.unlink_deadline_ms`: the callback's store writes give up within it, as the webhook's do.
    package let deadline: Duration
    let shared: SharedState
    let clock: UnixClock
    let logger: Logger

    init(callback: NaverUnlinkCallback, actions: AccountActions, deadline: Duration, shared: SharedState, clock: UnixClock, logger: Logger) {
        self.callback = callback
        self.actions = actions
        self.deadline = deadline
        self.shared = shared
        self.clock = clock
        self.logger = logger
    }

    package var meters: UnlinkMeters { actions.meters }

    /// The form body as Naver posted it. Refused: 401 `unauthorized` with `refusedDetail`, nothing recorded. A store
    /// that cannot record it: 503 `state_unavailable` (Naver does not resend; its operator sees the failure).
    package func accept(form body: [UInt8], context: CallContext) async throws(Problem) -> AccountEvent {
        let now = clock.now()
        let unlink: NaverUnlinkCallback.Unlink
        switch callback.check(form: body, now: now) {
        case .success(let checked):
            unlink = checked
        case .failure(let refusal):
            throw refused(refusal.rawValue, context)
        }
        try shared.health.require()
        let markKey = NaverUser.markKey(ofTextID: unlink.id)
        let queued = actions.newEvent(
            id: Base64URL.encode(SecureRandom.bytes(count: 16)), kakaoID: markKey, reason: "naver_unlink", eventType: nil,
            now: now, provider: .naver, providerID: unlink.id
        )
        // One use of a signed callback, fleet-wide, for as long as it could pass the timestamp check. Keyed by what the
        // signature covers (the person and the time), not by the body's bytes: the same callback with its fields
        // reordered or re-encoded is the same callback.
        let nonce = SHA256.hash(Array("naver-unlink:\(unlink.timestamp):\(unlink.id)".utf8))
        let expiresAt = unlink.timestamp + NaverUnlinkCallback.maxAgeSeconds + 1
        let first: Bool
        do {
            first = try await shared.withStore("record naver unlink", within: deadline) { store throws(StateStoreError) -> Bool in
                guard try await store.useNonce(id: nonce, expiresAt: max(expiresAt, now + 1)) == .first else { return false }
                try await store.enqueue(queued)
                try await store.setUnlinkMark(kakaoID: markKey, at: now)
                return true
            }
        } catch {
            logger.error("naver unlink callback: the state store cannot record the event", metadata: [
                "request_id": "\(context.requestID)", "reason": "\(error.description)",
            ])
            throw error.problem
        }
        guard first else { throw refused("replayed", context) }
        actions.forgetLocally(markKey: markKey, uid: actions.uid(of: queued), endingSessionsAt: now)
        return queued
    }

    /// Which check failed is for the operator's log line (`kakao_bridge_problems_total` counts the 401s): the caller
    /// learns nothing from the answer.
    private func refused(_ reason: String, _ context: CallContext) -> Problem {
        logger.notice("refused a naver unlink callback", metadata: ["request_id": "\(context.requestID)", "reason": "\(reason)"])
        return Problem.unauthorized(Self.refusedDetail)
    }

    /// Steps 2 and 3 (`AccountActions.work`).
    package func work(_ event: AccountEvent, context: CallContext) async -> AccountActions.EventOutcome {
        await actions.work(event, context: context)
    }
}
