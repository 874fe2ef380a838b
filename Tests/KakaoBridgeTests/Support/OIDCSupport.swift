import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// The app's side of a Kakao OpenID Connect login (a nonce from the bridge, an ID token from Kakao); the configuration
/// that turns it on is `OIDC` (EndToEndSupport).
extension RouterWorld {
    func nonce() async throws -> String {
        let reply = try await get("/v1/kakao/nonce")
        guard reply.status == 200, let nonce = reply.json?["nonce"]?.stringValue else {
            throw OIDCTestFailure("GET /v1/kakao/nonce answered \(reply.status): \(reply.text)")
        }
        return nonce
    }

    /// An ID token as Kakao signs it, for `user` and the test app key; `change` edits the payload before signing.
    func kakaoIDToken(
        _ user: StandIns.KakaoAccount = OIDC.user, nonce: String?, issuedAt: Int64? = nil,
        header: [String: any Sendable]? = nil, signing: IDTokenSigning = .current,
        _ change: (inout [String: any Sendable]) -> Void = { _ in }
    ) throws -> String {
        var payload = KakaoOIDCKeys.idTokenPayload(
            // A few seconds ago on the service's own clock: a test's `ManualUnixClock` starts at the real time and stays
            // there, so a token stamped from the real clock reads as issued in the future once a loaded machine has
            // spent a few seconds starting the world (CI saw 12 s).
            for: user, audience: OIDC.audience, nonce: nonce, now: issuedAt ?? clock.now() - 5
        )
        change(&payload)
        return try kakaoKeys.keys.signIDToken(header: header, payload: payload, signing: signing)
    }

    /// A nonce from the bridge and an ID token carrying it: what the app holds after Kakao Login.
    func kakaoLogin(_ user: StandIns.KakaoAccount = OIDC.user) async throws -> String {
        try kakaoIDToken(user, nonce: try await nonce())
    }
}

struct OIDCTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
