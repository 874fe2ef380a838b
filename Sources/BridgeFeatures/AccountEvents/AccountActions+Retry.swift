import BridgeSupport
import Logging
import StateStore
import Upstreams

/// What a step's failure leads to (a retry with backoff, or the event given up past its deadline), and the log lines of
/// an event's end: what operators read and alert on (docs/operations.md).
extension AccountActions {
    /// Backoff from 1 s, doubling, up to 5 minutes; past the event's deadline it is marked failed and logged at error.
    func giveUpOrRetry(
        _ event: AccountEvent, _ action: AccountAction, _ step: AccountStep, _ problem: Problem, uid: String?
    ) async -> EventOutcome {
        let attempts = event[step].attempts + 1
        let backoff = Int64(1) << Int64(min(attempts - 1, 9))
        let next = clock.now() + min(backoff, 300)
        var metadata = metadata(event, action, uid: uid ?? self.uid(of: event))
        metadata["step"] = "\(step.rawValue)"
        metadata["code"] = "\(problem.code.rawValue)"
        metadata["attempts"] = .stringConvertible(attempts)
        if let message = problem.upstreamMessage { metadata["upstream_message"] = "\(message)" }
        // The webhook's events keep the words operators' alerts were written for (docs/operations.md).
        let kind = event.kind == .deletion ? "account deletion" : event.eventType == nil ? "unlink" : "security event"
        if next > event.deadline {
            _ = try? await shared.store.markFailed(id: event.id, errorCode: problem.code.rawValue)
            meters.count(step, .failed)
            if event.kind == .deletion, let provider = event.provider.flatMap(Provider.init(rawValue:)) {
                deletionMeters.count(provider, .failed)
            }
            logger.error(
                "\(kind) event failed: kakao.unlink_retry_hours passed; `kakao-bridge unlinks --retry-failed` puts it back", metadata: metadata
            )
            return .failed
        }
        _ = try? await shared.store.deferStep(id: event.id, step: step, owner: shared.instanceID, errorCode: problem.code.rawValue, nextAttemptAt: next)
        meters.count(step, .retry)
        metadata["retry_in_s"] = .stringConvertible(next - clock.now())
        logger.warning("\(kind) step failed; it is retried", metadata: metadata)
        return .pending
    }

    func metadata(_ event: AccountEvent, _ action: AccountAction, uid: String?) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["event": "\(event.id)"]
        if let provider = event.provider, let id = event.providerID {
            metadata["provider"] = "\(provider)"
            metadata["provider_id"] = "\(id)"
        } else {
            metadata["kakao_id"] = .stringConvertible(event.kakaoID)
        }
        if let type = event.eventType {
            metadata["event_type"] = "\(AccountAction.metricName(type))"
        } else {
            metadata["referrer_type"] = "\(event.reason)"
            metadata["action"] = "\(unlinkAction.rawValue)"
        }
        if action == .unlink, event.eventType != nil { metadata["referrer_type"] = "\(event.reason)" }
        if let uid { metadata["uid"] = "\(uid)" }
        return metadata
    }

    static func doneMessage(_ action: AccountAction) -> String {
        switch action {
        case .unlink: "unlinked a Kakao user"
        case .disable: "disabled a Kakao user for Kakao's account-disabled"
        case .enable: "enabled a Kakao user for Kakao's account-enabled"
        case .revokeSessions: "revoked a Kakao user's sessions for Kakao's security event"
        case .distrustEmail: "a Kakao user's email is no longer trusted (identifier-recycled)"
        case .dropVerifications, .refreshProfile, .acknowledge: "handled Kakao's security event"
        }
    }
}
