import BridgeSupport
import Logging
import OpenSSLCrypto
import StateStore
import Upstreams

/// Kakao's account status change webhook (docs/api.md#kakaos-security-events): a security event token is
/// verified, its `jti` remembered fleet-wide for 7 days, and each of its events with an action recorded durably (queued,
/// with the marks that drop caches on every instance) before the answer; the actions then run as the unlink steps do
/// (`AccountActions`). Present exactly when `kakao.events.audiences` is not empty.
package final class SecurityEvents: Sendable {
    /// How long a `jti` is remembered at least: the same SET again changes nothing.
    package static let minimumJTILifetimeSeconds: Int64 = 7 * 86_400

    /// Longer than a SET is accepted (`kakao.events.max_age_seconds` and the clock skew) by a day, and at least
    /// `minimumJTILifetimeSeconds`: a SET still young enough to be accepted must never find its `jti` forgotten.
    package var jtiLifetimeSeconds: Int64 {
        max(Self.minimumJTILifetimeSeconds, verifier.rules.maxAgeSeconds + verifier.rules.clockSkewSeconds + 86_400)
    }

    let verifier: KakaoSecurityEventVerifier
    package let actions: AccountActions
    package let meters: SecurityEventMeters
    /// `kakao.unlink_deadline_ms`: the answer is due within Kakao's 3 s whatever the actions do.
    package let deadline: Duration
    let shared: SharedState
    let logger: Logger
    let clock: UnixClock

    init(
        verifier: KakaoSecurityEventVerifier, actions: AccountActions, meters: SecurityEventMeters, deadline: Duration,
        shared: SharedState, clock: UnixClock, logger: Logger
    ) {
        self.verifier = verifier
        self.actions = actions
        self.meters = meters
        self.deadline = deadline
        self.shared = shared
        self.clock = clock
        self.logger = logger
    }

    /// What a verified SET became.
    package struct Accepted: Sendable {
        /// Its events with an action, recorded and leased to this instance: run them now (`AccountActions.work`).
        package var queued: [AccountEvent]
        /// The metric names of its events that were only acknowledged.
        package var acknowledged: [String]
        /// The SET was seen before: nothing was changed.
        package var replayed: Bool
    }

    package func verify(_ body: [UInt8], context: CallContext) async throws(KakaoSecurityEventVerifier.Verification) -> SecurityEventToken {
        do {
            return try await verifier.verify(body, context: context)
        } catch {
            if case .rejected(let rejection) = error {
                meters.count(event: "unverified", outcome: rejection.code.rawValue)
                // The request's id (and trace ids, tracing on), as the request's own lines.
                logger.info("security event refused", metadata: context.logMetadata.merging([
                    "err": "\(rejection.code.rawValue)", "reason": "\(rejection.description)",
                ]) { $1 })
            }
            throw error
        }
    }

    /// Records the SET's events before it is acknowledged. The queue takes an event once (its id comes from the `jti`),
    /// marks are the same when written twice (their time is the SET's `iat`), and the `jti` is remembered last: a store
    /// that fails half-way is 503 `state_unavailable`, Kakao sends the SET again, and nothing is lost or done twice.
    /// All of it within the webhook's deadline, even from a store that hangs.
    package func accept(_ token: SecurityEventToken) async throws(Problem) -> Accepted {
        try shared.health.require()
        let now = clock.now()
        let at = min(token.issuedAt, now)
        let (actions, jtiLifetime) = (self.actions, self.jtiLifetimeSeconds)
        let accepted: Accepted
        do {
            accepted = try await shared.withStore("record security event", within: deadline) { store throws(StateStoreError) in
                var queued: [AccountEvent] = []
                var acknowledged: [String] = []
                for (index, event) in token.events.enumerated() {
                    let action = AccountAction(eventType: event.type)
                    guard action.isQueued else {
                        acknowledged.append(AccountAction.metricName(event.type))
                        continue
                    }
                    let reason = action == .unlink ? (event.type == AccountAction.purgedType ? "ACCOUNT_DELETE" : event.reason ?? "") : ""
                    let entry = actions.newEvent(
                        id: SecurityEventIDs.eventID(jti: token.jti, index: index), kakaoID: event.kakaoID, reason: reason,
                        eventType: event.type, now: now
                    )
                    let isNew = try await store.enqueue(entry)
                    switch action.mark {
                    case .endsSessions: try await store.setUnlinkMark(kakaoID: event.kakaoID, at: at)
                    case .changes: try await store.recordChange(kakaoID: event.kakaoID, at: at)
                    case nil: break
                    }
                    if isNew { queued.append(entry) }
                }
                let jtiKey = SHA256.hash(Array(("kakao-set-jti\u{0}" + token.jti).utf8))
                if try await store.useNonce(id: jtiKey, expiresAt: now + jtiLifetime) == .replayed {
                    // Seen before but gone from the queue (done more than a day ago): what was queued again is dropped.
                    for entry in queued { try await store.finish(id: entry.id) }
                    return Accepted(queued: [], acknowledged: acknowledged, replayed: true)
                }
                return Accepted(queued: queued, acknowledged: acknowledged, replayed: false)
            }
        } catch {
            logger.error("security event: the state store cannot record the event", metadata: ["reason": "\(error.description)"])
            throw error.problem
        }
        if accepted.replayed { return accepted }
        let queued = accepted.queued
        let acknowledged = accepted.acknowledged
        for event in token.events {
            guard let mark = AccountAction(eventType: event.type).mark else { continue }
            actions.forgetLocally(event.kakaoID, endingSessionsAt: mark == .endsSessions ? at : nil)
        }
        let hadActions = token.events.contains { AccountAction(eventType: $0.type).isQueued }
        return Accepted(queued: queued, acknowledged: acknowledged, replayed: hadActions && queued.isEmpty)
    }
}
