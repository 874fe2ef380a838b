extension BridgeConfig.Kakao {
    /// `kakao.events.*`: Kakao's account status change webhook, security event tokens at `POST /v1/kakao/events`
    /// (docs/api.md#kakaos-security-events). Verified with the keys at `kakao.oidc.jwks_url`.
    public struct Events: Sendable, Equatable {
        /// The `aud` values Kakao's SETs carry (the app's REST API key). Empty switches the route off (404).
        public var audiences: [String] = []
        /// A SET issued longer ago than this is refused (`invalid_request`).
        public var maxAgeSeconds = 86_400
        public init() {}

        public var enabled: Bool { !audiences.isEmpty }
    }
}
