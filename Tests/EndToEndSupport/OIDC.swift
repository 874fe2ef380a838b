import BridgeSupport
import StandIns

/// Kakao OpenID Connect in the test worlds (docs/api.md#kakao-id-tokens): the configuration that turns it on (the app's
/// side of a login, for router-level tests, is in KakaoBridgeTests' OIDCSupport.swift).
package enum OIDC {
    package static let audience = "test-native-app-key"
    package static let otherAudience = "test-javascript-key"
    package static let user = StandIns.KakaoAccount(
        id: 1_234_567_890, nickname: "Ryan", email: "ryan@example.com", profileImageURL: "https://k.kakaocdn.net/dn/profile.jpg"
    )

    /// OpenID Connect on, with both app keys, on top of `options`.
    package static func on(_ options: TestWorld.Options = .init(), requireNonce: Bool = true) -> TestWorld.Options {
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
