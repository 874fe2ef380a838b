import BridgeSupport
import StateStore
import Upstreams

/// Step `backend` of a queued event: the unlink notice and the security event notice.
extension AccountActions {
    /// Step `backend`: the unlink URL for an unlink (the webhook's or a SET's), the events URL for every SET's event.
    /// `false` when nobody was to be told.
    func tellBackend(_ event: AccountEvent, action: AccountAction, uid: String?, context: CallContext) async throws(Problem) -> Bool {
        var told = false
        if action == .unlink, let unlinkNotifier {
            let notice = if let provider = event.provider.flatMap(Provider.init(rawValue:)), provider != .kakao, let id = event.providerID {
                UnlinkNotice(uid: uid, provider: provider, providerID: id)
            } else {
                UnlinkNotice(uid: uid, kakaoID: event.kakaoID, referrerType: event.reason)
            }
            try await unlinkNotifier.notify(notice, context: context)
            told = true
        }
        if let type = event.eventType, let eventsNotifier {
            let jti = SecurityEventIDs.jti(ofEventID: event.id)
            try await eventsNotifier.notify(SecurityEventNotice(uid: uid, kakaoID: event.kakaoID, event: type, jti: jti), context: context)
            told = true
        }
        return told
    }
}
