import BridgeSupport
import StateStore
import Upstreams

/// Step `firebase` of a queued event: who the person is in Firebase, and what the event's `AccountAction` does to that
/// user (the table of docs/api.md#kakaos-security-events), safe to repeat.
extension AccountActions {
    /// Who the Kakao user is in Firebase.
    enum Target: Sendable {
        case none
        case user(FirebaseUserRecord)
        /// `kakao:<id>` is a link record pointing at this account.
        case linked(record: String, account: String)

        /// The uid the person was signed in as: what the backend knows them by.
        var uid: String? {
            switch self {
            case .none: nil
            case .user(let record): record.uid
            case .linked(_, let account): account
            }
        }
    }

    func lookUp(_ kakaoUID: String, context: CallContext) async throws(Problem) -> Target {
        guard let record = try await admin.lookUp(.uid(kakaoUID), context: context) else { return .none }
        if let attributes = CustomAttributes(record.customAttributes), let linkedUID = attributes.linkedUID {
            return .linked(record: kakaoUID, account: linkedUID)
        }
        return .user(record)
    }

    /// A linked account (one with other ways to sign in) is never disabled or deleted for Kakao's sake: at most it loses
    /// `kakao_id` and its sessions. "Revoke" and "disable" on a user that does not exist do nothing.
    func apply(_ action: AccountAction, to target: Target, event: AccountEvent, context: CallContext) async throws(Problem) {
        let kakaoID = event.kakaoID
        switch (action, target) {
        case (_, .none), (.dropVerifications, _), (.refreshProfile, _), (.acknowledge, _):
            return
        case (.unlink, .linked(let record, let account)):
            try await revokeLinkedAccount(account, kakaoID: kakaoID, removingKakaoID: true, context: context)
            try await admin.delete(uid: record, context: context)
        case (.unlink, .user(let record)):
            try await unlink(record.uid, context: context)
        case (.disable, .linked(_, let account)), (.revokeSessions, .linked(_, let account)):
            try await revokeLinkedAccount(account, kakaoID: kakaoID, removingKakaoID: false, context: context)
        case (.disable, .user(let record)):
            var update = FirebaseUserUpdate(uid: record.uid)
            update.validSince = clock.now()
            if !record.disabled {
                // Remembered before the write: a crash between the two leaves a user the service may enable, never one
                // it disabled and forgot. A user disabled by someone else is not claimed.
                try await remember(kakaoID, disabledByService: true)
                update.disabled = true
            }
            try await write(update, context: context)
        case (.enable, .user(let record)):
            guard try await isDisabledByService(kakaoID) else { return }
            if record.disabled {
                var update = FirebaseUserUpdate(uid: record.uid)
                update.disabled = false
                try await write(update, context: context)
            }
            try await remember(kakaoID, disabledByService: false)
        case (.enable, .linked):
            return
        case (.revokeSessions, .user(let record)):
            var update = FirebaseUserUpdate(uid: record.uid)
            update.validSince = clock.now()
            try await write(update, context: context)
        case (.distrustEmail, .user(let record)):
            guard record.emailVerified else { return }
            var update = FirebaseUserUpdate(uid: record.uid)
            update.emailVerified = false
            try await write(update, context: context)
            userCache?.forget(uid: record.uid)
        case (.distrustEmail, .linked):
            // The linked account's address was verified by its own way of signing in, not by Kakao.
            return
        }
    }

    /// The unlink webhook's step 2 on a user of our own: `kakao.unlink_action`.
    func unlink(_ uid: String, context: CallContext) async throws(Problem) {
        var update = FirebaseUserUpdate(uid: uid)
        switch unlinkAction {
        case .none:
            return
        case .delete:
            try await admin.delete(uid: uid, context: context)
            return
        case .revoke:
            update.validSince = clock.now()
        case .disable:
            update.validSince = clock.now()
            update.disabled = true
        }
        try await write(update, context: context)
    }

    /// The linked account's sessions revoked and, for an unlink, its `kakao_id` removed. An account that no longer names
    /// this Kakao user (a stale record, docs/api.md#linking-to-an-existing-firebase-account) is not this person's and is
    /// left alone.
    func revokeLinkedAccount(_ uid: String, kakaoID: Int64, removingKakaoID: Bool, context: CallContext) async throws(Problem) {
        guard let linked = try await admin.lookUp(.uid(uid), context: context),
              let attributes = CustomAttributes(linked.customAttributes), attributes.kakaoID == kakaoID else { return }
        var update = FirebaseUserUpdate(uid: uid)
        update.validSince = clock.now()
        if removingKakaoID { update.customAttributes = attributes.removing("kakao_id").serialized }
        try await write(update, context: context)
    }

    func write(_ update: FirebaseUserUpdate, context: CallContext) async throws(Problem) {
        guard try await admin.update(update, context: context) == .done else {
            throw Problem.firebaseAdminRejected("The Admin API refused accounts:update for the Kakao user.")
        }
    }
}
