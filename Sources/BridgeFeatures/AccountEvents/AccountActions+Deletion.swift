import BridgeSupport
import Logging
import StateStore
import Upstreams

extension AccountActions {
    /// The queued steps of an account deletion (docs/api.md#deleting-an-account): Kakao's admin-key unlink, the Firebase
    /// user (and a linked account's link record) deleted, the backend told. Naver's and LINE's unlinks were decided in the
    /// request (their person's token is never kept), so here they are never pending. Each step done is recorded at once
    /// and not repeated; each is safe to repeat after a crash (an unlinked Kakao user answers -101, a deleted user is
    /// not found: both count as done).
    func deletionSteps(_ event: AccountEvent, context: CallContext) async -> EventOutcome {
        let store = shared.store
        let owner = shared.instanceID
        var failure: (step: AccountStep, problem: Problem)?
        if event.providerUnlink.state == .pending {
            do throws(Problem) {
                guard let kakaoUnlinker else { throw Problem.kakaoUnavailable("kakao.admin_key is no longer set.") }
                try await kakaoUnlinker.unlink(.kakaoUserID(event.kakaoID), context: context)
                _ = try? await store.completeStep(id: event.id, step: .providerUnlink, owner: owner, uid: nil)
                meters.count(.providerUnlink, .done)
            } catch {
                failure = (.providerUnlink, error)
            }
        }
        var deleted = event.firebase.state != .pending
        if !deleted, let uid = event.uid {
            do throws(Problem) {
                try await admin.delete(uid: uid, context: context)
                if let record = event.linkRecord { try await admin.delete(uid: record, context: context) }
                _ = try? await store.completeStep(id: event.id, step: .firebase, owner: owner, uid: uid)
                meters.count(.firebase, .done)
                userCache?.forget(uid: uid)
                deleted = true
            } catch {
                failure = failure ?? (.firebase, error)
            }
        }
        // The backend hears of the deletion once the user is gone, never of one that might still be undone.
        if event.backend.state == .pending, deleted {
            do throws(Problem) {
                if let unlinkNotifier, let uid = event.uid, let provider = event.provider.flatMap(Provider.init(rawValue:)),
                   let providerID = event.providerID {
                    try await unlinkNotifier.notify(.deleted(uid: uid, provider: provider, providerID: providerID), context: context)
                    meters.count(.backend, .done)
                }
                _ = try? await store.completeStep(id: event.id, step: .backend, owner: owner, uid: nil)
            } catch {
                failure = failure ?? (.backend, error)
            }
        }
        guard let failure else {
            _ = try? await store.finish(id: event.id)
            logger.info("deleted an account", metadata: deletionMetadata(event))
            // A step that failed before makes this a later run: the deletion was answered 202 (counted `pending`), and
            // it is counted again now that the queue finished it, as a given-up one is counted `failed`.
            let laterRun = [event.providerUnlink, event.firebase, event.backend].contains { $0.attempts > 0 }
            if laterRun, let provider = event.provider.flatMap(Provider.init(rawValue:)) { deletionMeters.count(provider, .done) }
            return .done
        }
        return await giveUpOrRetry(event, .unlink, failure.step, failure.problem, uid: event.uid)
    }

    /// The uid and the provider's id, never a token.
    func deletionMetadata(_ event: AccountEvent) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["event": "\(event.id)"]
        if let uid = event.uid { metadata["uid"] = "\(uid)" }
        if let provider = event.provider { metadata["provider"] = "\(provider)" }
        if let id = event.providerID { metadata["provider_id"] = "\(id)" }
        return metadata
    }
}
