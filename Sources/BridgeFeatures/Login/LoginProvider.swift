import BridgeSupport
import Upstreams

/// One identity provider behind the login (docs/api.md#providers; ARCHITECTURE.md, "Where a provider plugs in"): it
/// turns the Bearer value into a verified user of its own (`ProviderProfile`), and the rest of the flow (the user sync,
/// the disabled-user refusal, the custom token's claims, the Identity Toolkit exchange, step 6, the hook) works on that
/// user without knowing which provider it came from. Kakao is one implementation (`KakaoLogin`), Naver another
/// (`NaverLogin`).
package protocol LoginProvider: Sendable {
    associatedtype User: ProviderProfile
    /// `kakao.uid_prefix`, `naver.uid_prefix`, …
    var uidPrefix: String { get }
    /// Step 2: who the bearer is, behind the provider's verification cache when it is on.
    func verifiedUser(_ bearer: String, use: CredentialUse, context: CallContext) async throws(Problem) -> User
}

extension LoginProvider {
    package var provider: Provider { User.provider }
}

/// Where a credential is being used: the rules of some credentials (Kakao's ID tokens: their nonce's single use) depend
/// on it, and the legacy route takes access tokens only.
package enum CredentialUse: Sendable {
    case exchange
    case hook
    /// `GET /v1/kakao/{access_token}`.
    case legacy
}
