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

    /// `firebase.signer` (docs/api.md#keyless-signing-on-google-cloud): who signs custom tokens.
    public enum Signer: String, ConfigChoice {
        /// The service account's key file, with OpenSSL in this process (docs/custom-token.md).
        case keyFile = "key_file"
        /// No key file: the IAM Credentials API's `signBlob`, as the account the service runs as on Google Cloud.
        case iam
    }
}
