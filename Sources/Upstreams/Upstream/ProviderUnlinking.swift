import BridgeSupport

/// Unlinking a person from our app at their provider, when their account is deleted (docs/api.md#deleting-an-account).
/// Kakao's takes the person's id and the admin key; Naver's and LINE's take the person's own access token, used within
/// the request and never kept. Returning means unlinked, or already not linked; anything else is a problem.
public protocol ProviderUnlinking: Sendable {
    func unlink(_ subject: UnlinkSubject, context: CallContext) async throws(Problem)
}

/// Who is unlinked: Kakao's user id (admin-key unlink), or the person's own access token (Naver, LINE).
public enum UnlinkSubject: Sendable {
    case kakaoUserID(Int64)
    case accessToken(String)
}

/// A provider that is off, or Kakao without an admin key: nothing calls it (the deletion's step is `skipped`).
public struct ProviderUnlinkOff: ProviderUnlinking {
    public init() {}

    public func unlink(_ subject: UnlinkSubject, context: CallContext) async throws(Problem) {
        throw Problem.invalidRequest("The provider's unlink is not configured.")
    }
}
