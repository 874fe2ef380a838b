/// One key of docs/configuration.md#keys: its YAML path, where it lives in `BridgeConfig`, and how a raw value becomes a typed one.
///
/// The table is the single source of truth for YAML paths and `BRIDGE_*` names: environment variables are matched
/// against it rather than split on `_`, because `_` also appears inside key names (`rate_limit.per_client_per_minute`).
package struct ConfigKey {
    package enum Field {
        case string(WritableKeyPath<BridgeConfig, String>)
        case int(WritableKeyPath<BridgeConfig, Int>)
        /// An integer, or nothing (empty, `~`): a setting that is off unless given (`server.admin_port`).
        case optionalInt(WritableKeyPath<BridgeConfig, Int?>)
        case int64(WritableKeyPath<BridgeConfig, Int64>)
        case number(WritableKeyPath<BridgeConfig, Double>)
        case bool(WritableKeyPath<BridgeConfig, Bool>)
        case cidrList(WritableKeyPath<BridgeConfig, [CIDR]>)
        case stringList(WritableKeyPath<BridgeConfig, [String]>)
        /// One word of a fixed set (`ConfigChoice`): `set` stores it and says whether it was one; `words` names them all.
        case choice(words: [String], set: (inout BridgeConfig, String) -> Bool)

        package static func choice<Value: ConfigChoice>(_ keyPath: WritableKeyPath<BridgeConfig, Value>) -> Field {
            .choice(words: Value.allCases.map(\.rawValue)) { config, word in
                guard let value = Value(rawValue: word) else { return false }
                config[keyPath: keyPath] = value
                return true
            }
        }
        /// The path of a file that holds the secret named here (docs/configuration.md#secrets-in-files); the loader reads it
        /// once every source is applied (`SecretSources`), since a later source may name another file.
        case secretFile(of: String)
    }

    package let path: String
    package let field: Field
    /// Secret values never appear in problem messages.
    package let isSecret: Bool

    package init(_ path: String, _ field: Field, secret: Bool = false) {
        self.path = path
        self.field = field
        self.isSecret = secret
    }

    package var section: Substring { path.prefix { $0 != "." } }

    package var environmentName: String {
        "BRIDGE_" + String(path.uppercased().map { $0 == "." ? "_" : $0 })
    }

    /// Computed rather than stored: key paths are not `Sendable`, and the table is only read at start-up.
    package static var all: [ConfigKey] {
        [
            ConfigKey("server.host", .string(\.server.host)),
            ConfigKey("server.port", .int(\.server.port)),
            ConfigKey("server.trusted_proxies", .cidrList(\.server.trustedProxies)),
            ConfigKey("server.shutdown_grace_seconds", .int(\.server.shutdownGraceSeconds)),
            ConfigKey("server.request_timeout_seconds", .int(\.server.requestTimeoutSeconds)),
            ConfigKey("server.max_connections", .int(\.server.maxConnections)),
            ConfigKey("server.max_connections_per_client", .int(\.server.maxConnectionsPerClient)),
            ConfigKey("server.first_request_timeout_seconds", .int(\.server.firstRequestTimeoutSeconds)),
            ConfigKey("server.admin_port", .optionalInt(\.server.adminPort)),
            ConfigKey("server.admin_host", .string(\.server.adminHost)),
            ConfigKey("server.cors_origins", .stringList(\.server.corsOrigins)),
            ConfigKey("kakao.app_id", .int64(\.kakao.appID)),
            ConfigKey("kakao.api_base_url", .string(\.kakao.apiBaseURL)),
            ConfigKey("kakao.uid_prefix", .string(\.kakao.uidPrefix)),
            ConfigKey("kakao.cache_seconds", .int(\.kakao.cacheSeconds)),
            ConfigKey("kakao.admin_key", .string(\.kakao.adminKey), secret: true),
            ConfigKey("kakao.admin_key_file", .secretFile(of: "kakao.admin_key")),
            ConfigKey("kakao.unlink_action", .choice(\.kakao.unlinkAction)),
            ConfigKey("kakao.unlink_deadline_ms", .int(\.kakao.unlinkDeadlineMS)),
            ConfigKey("kakao.unlink_retry_hours", .number(\.kakao.unlinkRetryHours)),
            ConfigKey("kakao.unlink_lease_seconds", .int(\.kakao.unlinkLeaseSeconds)),
            ConfigKey("kakao.oidc.audiences", .stringList(\.kakao.oidc.audiences)),
            ConfigKey("kakao.oidc.jwks_url", .string(\.kakao.oidc.jwksURL)),
            ConfigKey("kakao.oidc.require_nonce", .bool(\.kakao.oidc.requireNonce)),
            ConfigKey("kakao.oidc.nonce_secret", .string(\.kakao.oidc.nonceSecret), secret: true),
            ConfigKey("kakao.oidc.nonce_secret_file", .secretFile(of: "kakao.oidc.nonce_secret")),
            ConfigKey("kakao.events.audiences", .stringList(\.kakao.events.audiences)),
            ConfigKey("kakao.events.max_age_seconds", .int(\.kakao.events.maxAgeSeconds)),
            ConfigKey("naver.client_id", .string(\.naver.clientID)),
            ConfigKey("naver.client_secret", .string(\.naver.clientSecret), secret: true),
            ConfigKey("naver.client_secret_file", .secretFile(of: "naver.client_secret")),
            ConfigKey("naver.api_base_url", .string(\.naver.apiBaseURL)),
            ConfigKey("naver.auth_base_url", .string(\.naver.authBaseURL)),
            ConfigKey("naver.uid_prefix", .string(\.naver.uidPrefix)),
            ConfigKey("line.channel_id", .string(\.line.channelID)),
            ConfigKey("line.channel_secret", .string(\.line.channelSecret), secret: true),
            ConfigKey("line.channel_secret_file", .secretFile(of: "line.channel_secret")),
            ConfigKey("line.api_base_url", .string(\.line.apiBaseURL)),
            ConfigKey("line.uid_prefix", .string(\.line.uidPrefix)),
            ConfigKey("firebase.service_account_file", .string(\.firebase.serviceAccountFile)),
            ConfigKey("firebase.project_id", .string(\.firebase.projectID)),
            ConfigKey("firebase.signer", .choice(\.firebase.signer)),
            ConfigKey("firebase.service_account_email", .string(\.firebase.serviceAccountEmail)),
            ConfigKey("firebase.iam_credentials_url", .string(\.firebase.iamCredentialsURL)),
            ConfigKey("firebase.metadata_url", .string(\.firebase.metadataURL)),
            ConfigKey("firebase.web_api_key", .string(\.firebase.webAPIKey), secret: true),
            ConfigKey("firebase.web_api_key_file", .secretFile(of: "firebase.web_api_key")),
            ConfigKey("firebase.identity_toolkit_url", .string(\.firebase.identityToolkitURL)),
            ConfigKey("firebase.securetoken_certs_url", .string(\.firebase.securetokenCertsURL)),
            ConfigKey("firebase.custom_token_ttl_seconds", .int(\.firebase.customTokenTTLSeconds)),
            ConfigKey("firebase.clock_skew_seconds", .int(\.firebase.clockSkewSeconds)),
            ConfigKey("firebase.tenant_id", .string(\.firebase.tenantID)),
            ConfigKey("firebase.user_sync", .choice(\.firebase.userSync)),
            ConfigKey("firebase.user_cache_seconds", .int(\.firebase.userCacheSeconds)),
            ConfigKey("firebase.emulator_host", .string(\.firebase.emulatorHost)),
            ConfigKey("firebase.emulator_allow_remote", .bool(\.firebase.emulatorAllowRemote)),
            ConfigKey("backend.login_complete_url", .string(\.backend.loginCompleteURL)),
            ConfigKey("backend.unlink_url", .string(\.backend.unlinkURL)),
            ConfigKey("backend.events_url", .string(\.backend.eventsURL)),
            // A list during a rotation (docs/configuration.md#rotating-the-hook-secret).
            ConfigKey("hook.secret", .stringList(\.hook.secrets), secret: true),
            ConfigKey("hook.secret_file", .secretFile(of: "hook.secret")),
            ConfigKey("hook.check_revoked", .bool(\.hook.checkRevoked)),
            ConfigKey("legacy.enabled", .bool(\.legacy.enabled)),
            ConfigKey("linking.by_verified_email", .bool(\.linking.byVerifiedEmail)),
            ConfigKey("delete.self_service", .bool(\.delete.selfService)),
            ConfigKey("delete.max_auth_age_seconds", .int(\.delete.maxAuthAgeSeconds)),
            ConfigKey("upstream.timeout_ms", .int(\.upstream.timeoutMS)),
            ConfigKey("upstream.max_in_flight", .int(\.upstream.maxInFlight)),
            ConfigKey("upstream.allow_insecure", .bool(\.upstream.allowInsecure)),
            ConfigKey("rate_limit.per_client_per_minute", .int(\.rateLimit.perClientPerMinute)),
            ConfigKey("rate_limit.hook_per_minute", .int(\.rateLimit.hookPerMinute)),
            ConfigKey("state.url", .string(\.state.url)),
            ConfigKey("state.password", .string(\.state.password), secret: true),
            ConfigKey("state.password_file", .secretFile(of: "state.password")),
            ConfigKey("log.level", .string(\.log.level)),
            ConfigKey("log.format", .string(\.log.format)),
            ConfigKey("tracing.otlp_endpoint", .string(\.tracing.otlpEndpoint)),
            ConfigKey("tracing.service_name", .string(\.tracing.serviceName)),
        ]
    }
}

/// A value before it is typed: from YAML it may be any node shape, from the environment it is always text.
package enum RawConfigValue {
    /// YAML `~`, `null` or nothing: keeps the default.
    case null
    case text(String)
    case list([String])
    /// A shape no key accepts (a mapping, nested lists); the noun names it in the problem.
    case unsupported(String)
}

extension ConfigKey {
    /// Stores `raw` into `config`, or returns why it cannot (without the key's name, which the caller adds).
    package func apply(_ raw: RawConfigValue, to config: inout BridgeConfig) -> [String] {
        if case .null = raw { return [] }
        switch field {
        case .string(let keyPath):
            guard case .text(let text) = raw else { return [mismatch("a string", raw)] }
            config[keyPath: keyPath] = text
        case .int(let keyPath):
            guard case .text(let text) = raw, let value = Int(ConfigText.trimmed(text)) else {
                return [mismatch("an integer", raw)]
            }
            config[keyPath: keyPath] = value
        case .optionalInt(let keyPath):
            guard case .text(let text) = raw else { return [mismatch("an integer", raw)] }
            let trimmed = ConfigText.trimmed(text)
            // Empty is "not set", as `~` is: `BRIDGE_SERVER_ADMIN_PORT=` turns a file's value off.
            if trimmed.isEmpty {
                config[keyPath: keyPath] = nil
                return []
            }
            guard let value = Int(trimmed) else { return [mismatch("an integer", raw)] }
            config[keyPath: keyPath] = value
        case .int64(let keyPath):
            guard case .text(let text) = raw, let value = Int64(ConfigText.trimmed(text)) else {
                return [mismatch("an integer", raw)]
            }
            config[keyPath: keyPath] = value
        case .number(let keyPath):
            guard case .text(let text) = raw, let value = Double(ConfigText.trimmed(text)), value.isFinite else {
                return [mismatch("a number", raw)]
            }
            config[keyPath: keyPath] = value
        case .bool(let keyPath):
            guard case .text(let text) = raw, let value = Self.parseBool(text) else {
                return [mismatch("a boolean (true/false, yes/no, 1/0)", raw)]
            }
            config[keyPath: keyPath] = value
        case .cidrList(let keyPath):
            let entries: [String]
            switch raw {
            // The environment can only carry text, so a list there is comma-separated.
            case .text(let text): entries = text.split(separator: ",").map { ConfigText.trimmed($0) }.filter { !$0.isEmpty }
            case .list(let items): entries = items
            default: return [mismatch("a list of CIDRs", raw)]
            }
            var networks: [CIDR] = []
            var problems: [String] = []
            for entry in entries {
                if let network = CIDR(entry) {
                    networks.append(network)
                } else {
                    problems.append("\"\(entry)\" is not a CIDR (expected e.g. 10.0.0.0/8, fd00::/8 or a bare address)")
                }
            }
            if problems.isEmpty { config[keyPath: keyPath] = networks }
            return problems
        case .secretFile:
            // Only the shape is checked here: `SecretSources` keeps the path and reads the file.
            guard case .text = raw else { return [mismatch("a file path", raw)] }
        case .choice(let words, let set):
            guard case .text(let text) = raw else { return [mismatch("one of \(words.joined(separator: ", "))", raw)] }
            guard set(&config, ConfigText.trimmed(text)) else {
                return ["must be one of \(words.joined(separator: ", ")), got \"\(text)\""]
            }
        case .stringList(let keyPath):
            switch raw {
            // As for CIDR lists: the environment carries a comma-separated list.
            case .text(let text): config[keyPath: keyPath] = text.split(separator: ",").map { ConfigText.trimmed($0) }.filter { !$0.isEmpty }
            case .list(let items): config[keyPath: keyPath] = items.map { ConfigText.trimmed($0) }
            default: return [mismatch("a list of strings", raw)]
            }
        }
        return []
    }

    package static func parseBool(_ text: String) -> Bool? {
        switch ConfigText.trimmed(text).lowercased() {
        case "true", "yes", "1": true
        case "false", "no", "0": false
        default: nil
        }
    }

    private func mismatch(_ expected: String, _ raw: RawConfigValue) -> String {
        let got: String
        switch raw {
        case .text(let text): got = isSecret ? "" : ", got \"\(text)\""
        case .list: got = ", got a list"
        case .unsupported(let noun): got = ", got \(noun)"
        case .null: got = ""
        }
        return "expected \(expected)\(got)"
    }
}
