extension BridgeConfig.Kakao {
    /// `kakao.oidc.*`: Kakao OpenID Connect ID tokens accepted by `GET /v1/token-exchange` (docs/api.md#kakao-id-tokens).
    public struct OIDC: Sendable, Equatable {
        /// The app keys whose ID tokens are accepted (`aud`): native app key, JavaScript key, REST API key. Empty
        /// switches OIDC off, `GET /v1/kakao/nonce` included.
        public var audiences: [String] = []
        /// Kakao's published signing keys.
        public var jwksURL = "https://kauth.kakao.com/.well-known/jwks.json"
        /// Every ID token must carry a nonce this service issued, unexpired and not used before.
        public var requireNonce = true
        /// The nonces' HMAC key, shared by every instance that serves one app; empty: generated per process. A secret.
        public var nonceSecret = ""
        public init() {}

        public var enabled: Bool { !audiences.isEmpty }
    }
}
