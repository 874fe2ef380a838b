/// What the service does for one account event from Kakao: the unlink webhook's call, or one event of a security event
/// token, by its type (the table of docs/api.md#kakaos-security-events). An event with an action is queued
/// and run by `AccountActions`; `acknowledge` is only counted.
package enum AccountAction: Sendable, Equatable {
    /// The unlink webhook's steps (docs/api.md#kakaos-unlink-webhook): `kakao.unlink_action` on the user (a link
    /// record: the linked account loses `kakao_id` and its sessions), then `backend.unlink_url`.
    case unlink
    /// Sessions revoked and the user disabled; the store remembers that the service disabled it.
    case disable
    /// Enabled again, only when the service disabled it.
    case enable
    /// Sessions revoked (`validSince` = now).
    case revokeSessions
    /// The user's cached verifications dropped everywhere; nothing in Firebase.
    case dropVerifications
    /// `emailVerified: false`: the address belongs to someone else now.
    case distrustEmail
    /// The user-record cache and cached verifications dropped, so that the next login reads Kakao's profile again.
    case refreshProfile
    /// Acknowledged and counted, nothing else.
    case acknowledge

    package static let ssf = "https://schemas.openid.net/secevent/"

    /// The table, by the event type's full URI.
    package static let table: [String: AccountAction] = [
        ssf + "oauth/event-type/user-unlinked": .unlink,
        ssf + "risc/event-type/account-purged": .unlink,
        ssf + "risc/event-type/account-disabled": .disable,
        ssf + "risc/event-type/account-enabled": .enable,
        ssf + "risc/event-type/sessions-revoked": .revokeSessions,
        ssf + "risc/event-type/credential-compromise": .revokeSessions,
        ssf + "risc/event-type/account-credential-change-required": .revokeSessions,
        ssf + "caep/event-type/credential-change": .revokeSessions,
        ssf + "oauth/event-type/tokens-revoked": .revokeSessions,
        ssf + "oauth/event-type/token-revoked": .dropVerifications,
        ssf + "risc/event-type/identifier-recycled": .distrustEmail,
        ssf + "risc/event-type/identifier-changed": .refreshProfile,
        "https://schemas.kakao.com/platevent/kakao/event-type/user-profile-changed": .refreshProfile,
    ]

    /// Types Kakao documents that are only acknowledged: named in the metric, unlike types it may add later.
    package static let acknowledgedTypes: Set<String> = [
        ssf + "oauth/event-type/user-linked",
        ssf + "oauth/event-type/user-scope-consent",
        ssf + "oauth/event-type/user-scope-withdraw",
        ssf + "oauth/event-type/token-issued",
        ssf + "caep/event-type/assurance-level-change",
    ]

    /// The action of a SET's event.
    package init(eventType: String) {
        self = Self.table[eventType] ?? .acknowledge
    }

    /// The action of a queued event: the webhook's events carry no type.
    package init(queued eventType: String?) {
        self = eventType.map(AccountAction.init(eventType:)) ?? .unlink
    }

    package var isQueued: Bool { self != .acknowledge }

    /// `purged` unlinks with Kakao's `referrer_type` for a deleted account.
    package static let purgedType = ssf + "risc/event-type/account-purged"

    /// The metric's `event` label: the type's last path segment for the types Kakao documents, `other` for the rest,
    /// so that a sender cannot grow the metric without bound.
    package static func metricName(_ eventType: String) -> String {
        guard table[eventType] != nil || acknowledgedTypes.contains(eventType) else { return "other" }
        return eventType.split(separator: "/").last.map(String.init) ?? "other"
    }

    /// The marks recorded when such an event arrives (docs/api.md#kakaos-security-events): `endsSessions` refuses the
    /// user's ID tokens issued before it, `changes` only drops caches; both drop cached verifications on every instance.
    package enum Mark: Sendable {
        case endsSessions
        case changes
    }

    package var mark: Mark? {
        switch self {
        case .unlink, .disable, .revokeSessions: .endsSessions
        case .dropVerifications, .distrustEmail, .refreshProfile: .changes
        case .enable, .acknowledge: nil
        }
    }
}
