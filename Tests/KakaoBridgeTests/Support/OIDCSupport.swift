import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns

/// Kakao OpenID Connect in the test worlds (docs/api.md#kakao-id-tokens): the configuration that turns it on, and the app's
/// side of a login (a nonce from the bridge, an ID token from Kakao).
enum OIDC {
    static let audience = "test-native-app-key"
    static let otherAudience = "test-javascript-key"
    static let user = StandIns.KakaoAccount(
        id: 1_234_567_890, nickname: "Ryan", email: "ryan@example.com", profileImageURL: "https://k.kakaocdn.net/dn/profile.jpg"
    )

    /// OpenID Connect on, with both app keys, on top of `options`.
    static func on(_ options: TestWorld.Options = .init(), requireNonce: Bool = true) -> TestWorld.Options {
        var options = options
        let previous = options.configure
        options.configure = { config in
            previous(&config)
            config.kakao.oidc.audiences = [audience, otherAudience]
            config.kakao.oidc.requireNonce = requireNonce
        }
        return options
    }
}

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
