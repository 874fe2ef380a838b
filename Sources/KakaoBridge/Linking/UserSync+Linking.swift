import BridgeJSON

/// Linking by verified email (docs/api.md#linking-to-an-existing-firebase-account): a first Kakao login whose verified
/// email belongs to a Firebase user with a verified email signs into that user. The user gets `kakao_id` in its custom
/// claims (merged: nothing else is dropped), and `kakao:<id>` becomes a **link record**, a disabled user with no profile
/// whose custom claims say `{"linked_uid": <uid>}`, which later logins and the unlink webhook follow.
extension UserSync {
    /// The step when the email's user can be linked; `nil` when there is no such user or its email is not verified
    /// (the caller then creates `kakao:<id>` as usual). Throws `account_conflict` when it belongs to another Kakao user.
    func link(uid: String, email: String, user: KakaoUser, context: CallContext) async throws(Problem) -> Step? {
        guard let holder = try await admin.lookUp(.email(email), context: context), holder.emailVerified else { return nil }
        if holder.disabled { throw Problem.userDisabled() }
        guard let attributes = CustomAttributes(holder.customAttributes) else {
            throw Problem.firebaseAdminRejected(
                "The Firebase user's customAttributes are not a JSON object; linking would lose them."
            )
        }
        switch attributes.kakaoID {
        case .some(let linkedID) where linkedID != user.id:
            throw Problem.accountConflict()
        case .some:
            // Linked before; only the link record is missing (a login that stopped half-way, or a deleted record).
            let step = try await bringInStep(holder, user: user, extra: Self.keepProfile, outcome: .linked, context: context)
            try await createLinkRecord(uid: uid, linkedUID: holder.uid, context: context)
            return step
        case .none:
            // The claim first: a login that stops after it finds `kakao_id` next time and only makes the record.
            let merged = attributes.setting("kakao_id", .int(user.id)).serialized
            let step = try await bringInStep(
                holder, user: user, extra: { Self.keepProfile(&$0); $0.customAttributes = merged }, outcome: .linked,
                context: context
            )
            try await createLinkRecord(uid: uid, linkedUID: holder.uid, context: context)
            return step
        }
    }

    /// A linked account existed before Kakao: Kakao's nickname and picture replace its own when Kakao has them, but a
    /// name or picture Kakao does not return is kept, not deleted.
    static func keepProfile(_ update: inout FirebaseUserUpdate) { update.deleteAttributes = [] }

    /// `kakao:<id>`, disabled (nobody signs in as it) and pointing at the account: created, then its claims written.
    func createLinkRecord(uid: String, linkedUID: String, context: CallContext) async throws(Problem) {
        // `uidExists`: another instance made it a moment ago; the claims below are the same either way.
        _ = try await admin.create(NewFirebaseUser(uid: uid, disabled: true), context: context)
        var pointer = FirebaseUserUpdate(uid: uid)
        pointer.customAttributes = CustomAttributes(["linked_uid": .string(linkedUID)]).serialized
        guard try await admin.update(pointer, context: context) == .done else {
            throw Problem.firebaseAdminRejected("The Admin API refused to write the link record's claims.")
        }
    }
}
