import BridgeJSON
import BridgeSupport
import CurlHTTP
import FoundationEssentials
import KakaoBridge
import StandIns

/// Kakao Login with OpenID Connect as the app does it (docs/api.md#kakao-id-tokens), against the sandbox: a nonce from
/// the bridge, then the Kakao SDK's login with it, which returns an ID token signed by Kakao (here, the Kakao stand-in).
enum SandboxOIDC {
    /// The app key the sandbox's app logs in with: the first of `kakao.oidc.audiences` (config/sandbox.yaml).
    static func audience(_ config: BridgeConfig) -> String? { config.kakao.oidc.audiences.first }

    struct Login: Sendable {
        var nonce: String
        var idToken: String
    }

    /// `nil` when OpenID Connect is off in the sandbox's configuration or the nonce could not be had.
    static func login(world: SandboxWorld, bridgeURL: String, user: StandIns.KakaoAccount) async -> Login? {
        guard let audience = audience(world.config) else { return nil }
        let request = CurlHTTP.HTTPRequest(method: .get, url: bridgeURL + "/v1/kakao/nonce", headers: [], timeout: .seconds(10))
        guard let response = try? await world.http.execute(request), response.status == 200,
              let nonce = JSONValue.parse(response.body)?["nonce"]?.stringValue,
              let idToken = try? world.standIns.kakao.issueIDToken(for: user, audience: audience, nonce: nonce)
        else { return nil }
        return Login(nonce: nonce, idToken: idToken)
    }
}
