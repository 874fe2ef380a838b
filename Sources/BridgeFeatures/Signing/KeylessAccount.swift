import BridgeSupport
import Upstreams

/// With `firebase.signer: iam`, who signs and for which project: `firebase.service_account_email` and
/// `firebase.project_id`, else what the metadata server says, and the access-token cache the signer and the Admin API
/// share, holding the first token (docs/api.md#keyless-signing-on-google-cloud). The service is ready once this is known:
/// until then every login answers 503 `not_ready`.
public struct KeylessAccount: Sendable {
    /// Never logged, never in a label.
    public let email: String
    public let projectID: String
    package let credentials: AccessTokenCache

    /// Asks the metadata server what the configuration leaves open, and for a first access token: the metadata server
    /// has answered once all three did.
    /// - Throws: the first call's problem (`iam_*`, `firebase_admin_*` for the token, `upstream_timeout`).
    public static func resolve(
        _ config: BridgeConfig, upstreams: BridgeUpstreams, clock: UnixClock, context: CallContext
    ) async throws(Problem) -> KeylessAccount {
        let metadata = upstreams.metadata
        let firebase = config.firebase
        let email = firebase.serviceAccountEmail.isEmpty
            ? try await metadata.serviceAccountEmail(context: context) : firebase.serviceAccountEmail
        let projectID = firebase.projectID.isEmpty ? try await metadata.projectID(context: context) : firebase.projectID
        let credentials = AccessTokenCache(metadata: metadata, clock: clock)
        do {
            _ = try await credentials.bearer(context: context)
        } catch {
            throw error.asSigningFailure()
        }
        return KeylessAccount(email: email, projectID: projectID, credentials: credentials)
    }

    /// Why a service is not ready yet, for `/readyz` and the 503 of every route (no email, no token).
    public static func waiting(for problem: Problem?) -> String {
        guard let problem else { return "Keyless signing (firebase.signer: iam): waiting for the metadata server's first answer." }
        return "Keyless signing (firebase.signer: iam): the metadata server has not answered yet (\(problem.code.rawValue): \(problem.detail))"
    }
}
