import BridgeJSON
import BridgeSupport
import Logging
import Upstreams

/// Linking by verified email (docs/api.md#linking-to-an-existing-firebase-account): a first Kakao login whose verified
/// email belongs to a Firebase user with a verified email signs into that user. The user gets `kakao_id` in its custom
/// claims (merged: nothing else is dropped), and `kakao:<id>` becomes a **link record**, a disabled user with no profile
/// whose custom claims say `{"linked_uid": <uid>}`, which later logins and the unlink webhook follow.
///
/// The safety rules of that section: an account of this service's own (its uid begins with `kakao.uid_prefix`) is never
/// a target, since an address can be recycled at Kakao; emails match by ASCII only (`LinkEmail`); linking to one account
/// is serialised (`LinkLocks`) and the account is read back before anything is minted for it.
extension UserSync {
    /// The step when the email's user can be linked; `nil` when there is no such user or it is not one that links (the
    /// caller then creates `kakao:<id>` as usual). Throws `account_conflict` when it belongs to another Kakao user.
    func link(uid: String, email: String, user: KakaoUser, context: CallContext) async throws(Problem) -> Step? {
        guard LinkEmail.comparable(email) != nil,
              let found = try await admin.lookUp(.email(email), context: context) else { return nil }
        if found.uid.hasPrefix(uidPrefix) {
            // A Kakao user of this service (or a link record) holds the address: never hand it to another Kakao user.
            return try await create(uid: uid, user: user, withEmail: false, context: context)
        }
        guard found.emailVerified, LinkEmail.same(email, found.email) else { return nil }
        return try await linkLocks.serialized(found.uid) { () async throws(Problem) -> Step in
            try await linkHolding(found.uid, uid: uid, email: email, user: user, context: context)
        }
    }

    /// Under the account's lock: read it afresh (another link may have finished while this one waited), claim it, read it
    /// back, and only then make the link record.
    private func linkHolding(
        _ holderUID: String, uid: String, email: String, user: KakaoUser, context: CallContext
    ) async throws(Problem) -> Step {
        guard let holder = try await admin.lookUp(.uid(holderUID), context: context),
              holder.emailVerified, LinkEmail.same(email, holder.email) else {
            // The account changed while this login waited: it is no longer one to link to.
            return try await create(uid: uid, user: user, context: context)
        }
        if holder.disabled { throw Problem.userDisabled() }
        let attributes = try Self.attributes(of: holder)
        let step: Step
        switch attributes.kakaoID {
        case .some(let linkedID) where linkedID != user.id:
            throw Problem.accountConflict()
        case .some:
            // Linked before; only the link record is missing (a login that stopped half-way, or a deleted record).
            step = try await bringInStep(holder, user: user, extra: Self.keepProfile, outcome: .linked, context: context)
        case .none:
            // The claim first: a login that stops after it finds `kakao_id` next time and only makes the record.
            let merged = attributes.setting("kakao_id", .int(user.id)).serialized
            step = try await bringInStep(
                holder, user: user, extra: { Self.keepProfile(&$0); $0.customAttributes = merged }, outcome: .linked,
                context: context
            )
        }
        try await requireClaim(holderUID, names: user.id, context: context)
        try await createLinkRecord(uid: uid, linkedUID: holderUID, context: context)
        return step
    }

    /// The account read back names this Kakao user: another writer (another instance) did not overwrite the claim.
    func requireClaim(_ accountUID: String, names kakaoID: Int64, context: CallContext) async throws(Problem) {
        guard let account = try await admin.lookUp(.uid(accountUID), context: context),
              try Self.attributes(of: account).kakaoID == kakaoID else {
            throw Problem.accountConflict()
        }
    }

    static func attributes(of record: FirebaseUserRecord) throws(Problem) -> CustomAttributes {
        guard let attributes = CustomAttributes(record.customAttributes) else {
            throw Problem.firebaseAdminRejected("The Firebase user's customAttributes are not a JSON object; linking would lose them.")
        }
        return attributes
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

    /// Following a link record: the account must still name this Kakao user. When it does not (another Kakao user's
    /// link won, or someone removed the claim), the record goes and the login is refused: nothing is minted for an
    /// account that does not name this user.
    func requireLinkStands(_ linked: FirebaseUserRecord, recordUID uid: String, user: KakaoUser, context: CallContext) async throws(Problem) {
        guard (try? Self.attributes(of: linked))?.kakaoID != user.id else { return }
        try await admin.delete(uid: uid, context: context)
        logger.notice(
            "deleted a link record whose account no longer names the Kakao user",
            metadata: context.logMetadata.merging(["uid": "\(uid)"]) { $1 }
        )
        throw Problem.accountConflict()
    }
}
