/// A configuration value that is one of a fixed set of words (docs/configuration.md#keys): an enum, so that code and tests
/// match on cases, never on spelling. The loader takes the word and names every allowed one when it is not.
public protocol ConfigChoice: RawRepresentable<String>, CaseIterable, Sendable, Equatable {}

extension BridgeConfig {
    /// `firebase.user_sync` (docs/api.md#user-sync).
    public enum UserSyncMode: String, ConfigChoice {
        case off
        case bestEffort = "best_effort"
        case required
    }

    /// `kakao.unlink_action` (docs/api.md#kakaos-unlink-webhook): what an unlink does to the Firebase user.
    public enum UnlinkAction: String, ConfigChoice {
        case revoke
        case disable
        case delete
        case none
    }
}
