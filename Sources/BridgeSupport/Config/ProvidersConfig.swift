extension BridgeConfig {
    /// `naver.*` (docs/configuration.md#naver): Naver Login beside Kakao. On when `clientID` is set.
    public struct Naver: Sendable, Equatable {
        /// The Naver app's Client ID (Naver Developers > Application > 애플리케이션 정보); empty: Naver is off.
        public var clientID = ""
        /// The app's Client Secret: the key of Naver's unlink callback (`POST /v1/naver/unlink`, off without it). A secret.
        public var clientSecret = ""
        /// `GET /v1/nid/me`.
        public var apiBaseURL = "https://openapi.naver.com"
        /// Naver's login server (token revocation).
        public var authBaseURL = "https://nid.naver.com"
        public var uidPrefix = "naver:"
        public init() {}

        public var enabled: Bool { !clientID.isEmpty }
        /// The unlink callback needs the secret: its key is derived from it (docs/api.md#navers-unlink-callback).
        public var unlinkCallbackEnabled: Bool { enabled && !clientSecret.isEmpty }
    }

    /// `line.*` (docs/configuration.md#line): LINE Login beside Kakao. On when `channelID` is set.
    public struct Line: Sendable, Equatable {
        /// The LINE Login channel's id (digits; LINE Developers console > channel > Basic settings); empty: LINE is off.
        public var channelID = ""
        /// The channel secret: the key of LINE's HS256 ID tokens (web login). A secret.
        public var channelSecret = ""
        /// Verify, profile and the ID tokens' keys (`/oauth2/v2.1/certs`).
        public var apiBaseURL = "https://api.line.me"
        public var uidPrefix = "line:"
        public init() {}

        public var enabled: Bool { !channelID.isEmpty }
    }

    /// Whether `provider` is switched on (Kakao always is).
    public func isOn(_ provider: Provider) -> Bool {
        switch provider {
        case .kakao: true
        case .naver: naver.enabled
        case .line: line.enabled
        }
    }

    /// The uid prefix of `provider`'s users (`kakao.uid_prefix`, `naver.uid_prefix`, `line.uid_prefix`).
    public func uidPrefix(_ provider: Provider) -> String {
        switch provider {
        case .kakao: kakao.uidPrefix
        case .naver: naver.uidPrefix
        case .line: line.uidPrefix
        }
    }
}

extension ConfigValidation {
    /// Naver's ids are up to 64 characters (docs/api.md#naver-access-tokens), LINE's 33: the prefix and the id fit a
    /// 128-unit Firebase uid.
    package static let maxProviderUIDPrefixLength = 128 - 64

    /// docs/configuration.md#naver and #line. Every problem at once, like the rest of validation.
    package static func providerIssues(
        _ config: BridgeConfig, url: (String, String) -> Void, check: (Bool, String, @autoclosure () -> String) -> Void
    ) {
        let naver = config.naver
        url(naver.apiBaseURL, "naver.api_base_url")
        url(naver.authBaseURL, "naver.auth_base_url")
        check(naver.clientID.allSatisfy { !$0.isWhitespace }, "naver.client_id",
              "must be the Naver app's Client ID without spaces, or empty to turn Naver off")
        check(naver.clientSecret.isEmpty || naver.enabled, "naver.client_secret", "needs naver.client_id")
        let line = config.line
        url(line.apiBaseURL, "line.api_base_url")
        check(line.channelID.isEmpty || (line.channelID.count <= 20 && line.channelID.allSatisfy { $0.isASCII && $0.isNumber }),
              "line.channel_id", "must be the LINE Login channel's id (digits), or empty to turn LINE off")
        check(line.channelSecret.isEmpty || line.enabled, "line.channel_secret", "needs line.channel_id")
        // Prefixes of different providers must never share uids: `kakao:` and `kakao:n` would let one own the other's.
        let prefixes: [(Provider, String)] = [(.kakao, config.kakao.uidPrefix), (.naver, naver.uidPrefix), (.line, line.uidPrefix)]
        for (provider, prefix) in prefixes where provider != .kakao {
            let path = "\(provider.rawValue).uid_prefix"
            check(!prefix.isEmpty, path, "must not be empty (uids are <prefix><\(provider.displayName) id>, e.g. \(provider.rawValue):…)")
            check(prefix.utf16.count <= maxProviderUIDPrefixLength, path,
                  "must be at most \(maxProviderUIDPrefixLength) UTF-16 code units so that prefix plus a \(provider.displayName) id fits a 128-unit Firebase uid, got \(prefix.utf16.count)")
        }
        for (index, (provider, prefix)) in prefixes.enumerated() where !prefix.isEmpty && config.isOn(provider) {
            for (other, otherPrefix) in prefixes[(index + 1)...] where !otherPrefix.isEmpty && config.isOn(other) {
                check(!prefix.hasPrefix(otherPrefix) && !otherPrefix.hasPrefix(prefix), "\(other.rawValue).uid_prefix",
                      "must not begin with, or be the beginning of, \(provider.rawValue).uid_prefix: two providers would share uids")
            }
        }
    }
}
