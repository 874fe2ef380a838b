/// The rules of docs/configuration.md#validation, checked on a typed configuration. Each issue names its key so the loader can add where the
/// value came from; no message contains a secret's value.
package struct ConfigIssue: Equatable {
    package let path: String
    package let message: String
}

package enum ConfigValidation {
    package static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
    package static let logFormats = ["json", "text"]
    /// Firebase uids are at most 128 characters (UTF-16 code units, as Google counts them) and a Kakao id has up to 20
    /// digits.
    package static let maxUIDPrefixLength = 128 - 20
    /// A token Kakao revoked (the user logged out) must not keep working for long.
    package static let maxKakaoCacheSeconds = 300

    /// Every rule, in the order of docs/configuration.md#keys, each part in a function of its own; all problems at once.
    package static func issues(in config: BridgeConfig) -> [ConfigIssue] {
        let found = ConfigIssueList(allowInsecure: config.upstream.allowInsecure)
        serverIssues(config.server, found)
        kakaoIssues(config.kakao, found)
        stateIssues(config.state, check: found.check)
        providerIssues(config, url: { found.url($0, $1) }, check: found.check)
        oidcIssues(config.kakao.oidc, url: { found.url($0, $1, optional: $2) }, check: found.check)
        eventsIssues(config.kakao.events, found)
        signerIssues(config.firebase, url: { found.url($0, $1) }, check: found.check)
        firebaseIssues(config.firebase, found)
        backendIssues(config, found)
        hookSecretIssues(config.hook.secrets, check: found.check)
        found.range(config.delete.maxAuthAgeSeconds, 1...86_400, "delete.max_auth_age_seconds")
        limitIssues(config, found)
        logAndTracingIssues(config, found)
        return found.issues
    }

    private static func serverIssues(_ server: BridgeConfig.Server, _ found: ConfigIssueList) {
        found.check(!ConfigText.trimmed(server.host).isEmpty, "server.host",
                    "must not be empty (the address to listen on, e.g. 127.0.0.1 or 0.0.0.0)")
        found.range(server.port, 0...65535, "server.port", " (0 picks a free port)")
        found.range(server.shutdownGraceSeconds, 0...600, "server.shutdown_grace_seconds")
        found.range(server.requestTimeoutSeconds, 1...600, "server.request_timeout_seconds")
        found.range(server.maxConnections, 1...1_000_000, "server.max_connections")
        found.range(server.maxConnectionsPerClient, 0...1_000_000, "server.max_connections_per_client", " (0 is a quarter of server.max_connections)")
        found.range(server.firstRequestTimeoutSeconds, 1...600, "server.first_request_timeout_seconds")
        if let adminPort = server.adminPort {
            found.range(adminPort, 0...65535, "server.admin_port", " (0 picks a free port)")
            found.check(adminPort == 0 || adminPort != server.port, "server.admin_port",
                        "must differ from server.port (\(server.port)): the probes and /metrics get a listener of their own")
            found.check(!ConfigText.trimmed(server.adminHost).isEmpty, "server.admin_host",
                        "must not be empty (the address the admin port listens on, e.g. 127.0.0.1, or 0.0.0.0 in a pod)")
        }
        for origin in server.corsOrigins {
            if let problem = WebOrigin.problem(origin) { found.add("server.cors_origins", problem) }
        }
    }

    private static func kakaoIssues(_ kakao: BridgeConfig.Kakao, _ found: ConfigIssueList) {
        if kakao.appID == 0 {
            found.add("kakao.app_id", "required (a positive integer, the numeric id of your Kakao app)")
        } else {
            found.check(kakao.appID > 0, "kakao.app_id", "must be a positive integer (the numeric id of your Kakao app), got \(kakao.appID)")
        }
        found.url(kakao.apiBaseURL, "kakao.api_base_url")
        if kakao.uidPrefix.isEmpty {
            found.add("kakao.uid_prefix", "must not be empty (uids are <prefix><kakao id>, e.g. kakao:1234)")
        } else {
            found.check(kakao.uidPrefix.utf16.count <= maxUIDPrefixLength, "kakao.uid_prefix",
                        "must be at most \(maxUIDPrefixLength) UTF-16 code units so that prefix plus a 20-digit Kakao id fits a 128-unit Firebase uid, got \(kakao.uidPrefix.utf16.count)")
        }
        found.range(kakao.cacheSeconds, 0...maxKakaoCacheSeconds, "kakao.cache_seconds",
                    " (0 turns the cache off; a token Kakao revoked must not keep working for longer)")
        // The value is never echoed: it is a secret, and a wrong one may be another secret pasted by mistake.
        found.check(kakao.adminKey.isEmpty || isAdminKey(kakao.adminKey), "kakao.admin_key",
                    "must be Kakao's admin key of the app: 32 hexadecimal characters (Kakao Developers > App > App Keys > Admin key), "
                        + "or empty to turn the unlink webhook off")
        found.range(kakao.unlinkDeadlineMS, 100...2900, "kakao.unlink_deadline_ms", " (Kakao waits 3 s for the webhook's answer)")
        found.check(kakao.unlinkRetryHours > 0 && kakao.unlinkRetryHours <= 720, "kakao.unlink_retry_hours",
                    "must be more than 0 and at most 720 (hours; 0.01 is 36 s), got \(kakao.unlinkRetryHours)")
        found.range(kakao.unlinkLeaseSeconds, 1...600, "kakao.unlink_lease_seconds")
    }

    private static func eventsIssues(_ events: BridgeConfig.Kakao.Events, _ found: ConfigIssueList) {
        found.check(events.audiences.allSatisfy { !$0.isEmpty && !$0.contains(where: { $0.isWhitespace }) }, "kakao.events.audiences",
                    "every entry must be the aud Kakao's security events carry (the app's REST API key) without spaces")
        found.range(events.maxAgeSeconds, 60...604_800, "kakao.events.max_age_seconds",
                    " (a SET issued longer ago is refused; the jti of one is remembered for 7 days)")
    }

    private static func firebaseIssues(_ firebase: BridgeConfig.Firebase, _ found: ConfigIssueList) {
        found.url(firebase.identityToolkitURL, "firebase.identity_toolkit_url")
        found.url(firebase.securetokenCertsURL, "firebase.securetoken_certs_url")
        found.range(firebase.customTokenTTLSeconds, 1...3600, "firebase.custom_token_ttl_seconds")
        found.range(firebase.clockSkewSeconds, 0...60, "firebase.clock_skew_seconds")
        found.range(firebase.userCacheSeconds, 0...3600, "firebase.user_cache_seconds", " (0 turns the cache off)")
        guard firebase.usesEmulator else { return }
        if let host = emulatorHostName(firebase.emulatorHost) {
            found.check(firebase.emulatorAllowRemote || isLoopback(host), "firebase.emulator_host",
                        "names a host that is not a loopback address (127.0.0.0/8, ::1, localhost); the Auth Emulator accepts "
                            + "unsigned ID tokens, so a remote one needs firebase.emulator_allow_remote: true")
        } else {
            found.add("firebase.emulator_host", "must be host:port (as FIREBASE_AUTH_EMULATOR_HOST, e.g. 127.0.0.1:9099)")
        }
    }

    /// The backend's URLs, each with what it needs to be of use, and linking's need of the user sync.
    private static func backendIssues(_ config: BridgeConfig, _ found: ConfigIssueList) {
        let backend = config.backend
        found.url(backend.loginCompleteURL, "backend.login_complete_url", optional: true)
        found.check(backend.loginCompleteURL.isEmpty || !config.firebase.webAPIKey.isEmpty, "backend.login_complete_url",
                    "needs firebase.web_api_key (step 6 sends the Firebase ID token, which only the step 4 exchange obtains)")
        found.url(backend.unlinkURL, "backend.unlink_url", optional: true)
        found.check(
            backend.unlinkURL.isEmpty || !config.kakao.adminKey.isEmpty || config.naver.unlinkCallbackEnabled || !config.hook.secret.isEmpty,
            "backend.unlink_url",
            "needs kakao.admin_key, naver.client_secret or hook.secret (the unlink webhook, Naver's unlink callback and account deletion, which this URL is told about, are off without them)"
        )
        found.check(backend.unlinkURL.isEmpty || !config.hook.secret.isEmpty, "backend.unlink_url",
                    "needs hook.secret (the notification is sent with `Authorization: Bearer <hook.secret>`)")
        found.url(backend.eventsURL, "backend.events_url", optional: true)
        found.check(backend.eventsURL.isEmpty || config.kakao.events.enabled, "backend.events_url",
                    "needs kakao.events.audiences (Kakao's security events, which this URL is told about, are off without it)")
        found.check(backend.eventsURL.isEmpty || !config.hook.secret.isEmpty, "backend.events_url",
                    "needs hook.secret (the notification is sent with `Authorization: Bearer <hook.secret>`)")
        found.check(!config.linking.byVerifiedEmail || config.firebase.userSync != .off, "linking.by_verified_email",
                    "needs firebase.user_sync best_effort or required (linking looks the user up in Firebase on every login)")
    }

    private static func limitIssues(_ config: BridgeConfig, _ found: ConfigIssueList) {
        found.range(config.upstream.timeoutMS, 1...120_000, "upstream.timeout_ms")
        found.atLeast(config.upstream.maxInFlight, 1, "upstream.max_in_flight")
        found.atLeast(config.rateLimit.perClientPerMinute, 0, "rate_limit.per_client_per_minute", " (0 turns rate limiting off)")
        found.atLeast(config.rateLimit.hookPerMinute, 0, "rate_limit.hook_per_minute", " (0 turns it off)")
    }

    private static func logAndTracingIssues(_ config: BridgeConfig, _ found: ConfigIssueList) {
        found.check(logLevels.contains(config.log.level), "log.level",
                    "must be one of \(logLevels.joined(separator: ", ")), got \"\(config.log.level)\"")
        found.check(logFormats.contains(config.log.format), "log.format",
                    "must be json or text, got \"\(config.log.format)\"")
        // Plain http:// is allowed anywhere: a collector is usually a sidecar or in-cluster, and spans carry no secret.
        let tracing = config.tracing
        if !tracing.otlpEndpoint.isEmpty {
            found.check(isHTTPURL(tracing.otlpEndpoint), "tracing.otlp_endpoint",
                        "must be empty (tracing off) or the http:// or https:// base URL of an OTLP/HTTP collector, e.g. http://otel-collector:4318")
        }
        found.check(!ConfigText.trimmed(tracing.serviceName).isEmpty, "tracing.service_name",
                    "must not be empty (the service.name of every span; default kakao-bridge)")
    }

    /// docs/configuration.md#keys, `kakao.oidc.*`. The JWKS URL gets the rule of every upstream URL: a plain-HTTP one
    /// would let anyone on the path forge ID tokens.
    package static func oidcIssues(
        _ oidc: BridgeConfig.Kakao.OIDC, url: (String, String, Bool) -> Void, check: (Bool, String, @autoclosure () -> String) -> Void
    ) {
        url(oidc.jwksURL, "kakao.oidc.jwks_url", false)
        check(oidc.audiences.allSatisfy { !$0.isEmpty && !$0.contains(where: { $0.isWhitespace }) }, "kakao.oidc.audiences",
              "every entry must be a Kakao app key (native app key, JavaScript key or REST API key) without spaces")
        check(oidc.nonceSecret.isEmpty || oidc.nonceSecret.utf8.count >= 32, "kakao.oidc.nonce_secret",
              "must be at least 32 bytes, or empty to generate one per process (generate one with `openssl rand -hex 32`)")
    }

    /// Not a key: the path under which a bad `GCE_METADATA_HOST` is reported (the loader names the variable).
    package static let metadataHostPath = "(GCE_METADATA_HOST)"

    /// docs/configuration.md#keyless-signing: a key file with `key_file`, none with `iam` (both set would leave it unclear
    /// which account signs). The metadata URL is the one upstream allowed plain HTTP off loopback: the metadata server is
    /// link-local and speaks nothing else.
    package static func signerIssues(
        _ firebase: BridgeConfig.Firebase, url: (String, String) -> Void, check: (Bool, String, @autoclosure () -> String) -> Void
    ) {
        switch firebase.signer {
        case .keyFile:
            check(!firebase.serviceAccountFile.isEmpty, "firebase.service_account_file",
                  "required (path to the Google service-account JSON key file)")
            check(firebase.serviceAccountEmail.isEmpty, "firebase.service_account_email",
                  "is only for firebase.signer: iam (with key_file the account is the key file's client_email)")
        case .iam:
            check(firebase.serviceAccountFile.isEmpty, "firebase.service_account_file",
                  "must be empty with firebase.signer: iam (keyless: custom tokens are signed by the IAM Credentials API as the account the service runs as); remove it, or set firebase.signer: key_file")
            check(!firebase.usesEmulator, "firebase.signer",
                  "iam cannot be used with the Auth Emulator (firebase.emulator_host), which is not Google and signs nothing; use key_file")
        }
        check(firebase.serviceAccountEmail.isEmpty || isServiceAccountEmail(firebase.serviceAccountEmail),
              "firebase.service_account_email",
              "must be a service account's email, e.g. NAME@PROJECT.iam.gserviceaccount.com, or empty to ask the metadata server")
        url(firebase.iamCredentialsURL, "firebase.iam_credentials_url")
        // Only host[:port]: a user part, a path, `?` or `#` could send the access tokens elsewhere than the host it names.
        if !firebase.metadataURL.isEmpty {
            check(metadataHost(ofURL: firebase.metadataURL) != nil, "firebase.metadata_url",
                  "must be http://HOST or http://HOST:PORT, nothing more (e.g. http://metadata.google.internal), or empty")
        } else if !firebase.metadataHost.isEmpty {
            check(plainHost(firebase.metadataHost) != nil, metadataHostPath,
                  "must be a host or host:port, as Google's auth libraries read it (e.g. 169.254.169.254 or metadata.google.internal:80)")
        }
    }

    /// The host of `http://HOST[:PORT]` (one trailing `/` allowed); nil for anything else.
    package static func metadataHost(ofURL text: String) -> String? {
        guard text.lowercased().hasPrefix("http://") else { return nil }
        var rest = text.dropFirst(7)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        return plainHost(String(rest))
    }

    /// The host of `HOST`, `HOST:PORT` or `[V6]:PORT`; nil when the text is anything more (a user part, a path, a query).
    package static func plainHost(_ text: String) -> String? {
        guard !text.contains(where: { $0.isWhitespace || "/@?#%\\".contains($0) }) else { return nil }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            guard after.isEmpty || validPort(after) else { return nil }
            let host = text[text.index(after: text.startIndex)..<close]
            return host.isEmpty ? nil : String(host)
        }
        var host = Substring(text)
        if let colon = text.firstIndex(of: ":") {
            guard validPort(text[colon...]) else { return nil }
            host = text[..<colon]
        }
        return host.isEmpty ? nil : String(host)
    }

    /// With `firebase.signer: iam`, the warning for a metadata server that is not Google's (169.254.169.254,
    /// metadata.google.internal) or on this machine: it is asked over plain HTTP and answers with access tokens, which
    /// anyone on the path to another host could read (docs/configuration.md#keyless-signing). Nil when there is none.
    package static func metadataWarning(_ firebase: BridgeConfig.Firebase) -> String? {
        guard firebase.signer == .iam else { return nil }
        let host = firebase.metadataURL.isEmpty
            ? (firebase.metadataHost.isEmpty ? "metadata.google.internal" : plainHost(firebase.metadataHost))
            : metadataHost(ofURL: firebase.metadataURL)
        guard let host else { return nil }
        let lowered = host.lowercased()
        if lowered == "169.254.169.254" || lowered == "metadata.google.internal" || lowered == "metadata.google.internal."
            || isLoopback(lowered) { return nil }
        return "the metadata server \(host) is not Google's (169.254.169.254, metadata.google.internal) nor on this machine: "
            + "it is asked over plain HTTP and answers with access tokens; make sure nobody else is on the path to it"
    }

    /// `name@domain`, nothing that could change the signBlob URL it goes into: no whitespace, `/`, `?`, `#` or `%`.
    package static func isServiceAccountEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && text.utf8.count <= 254
            && !text.contains(where: { $0.isWhitespace || "/?#%:".contains($0) })
    }

    /// docs/configuration.md#rotating-the-hook-secret: one secret, or a list of them during a rotation, each at least 32
    /// bytes. Entries are named by their place in the list, never by their value.
    package static func hookSecretIssues(_ secrets: [String], check: (Bool, String, @autoclosure () -> String) -> Void) {
        guard secrets.count > 1 else {
            check(secrets.allSatisfy { $0.utf8.count >= 32 }, "hook.secret",
                  "must be at least 32 bytes, or empty to turn the hook off (generate one with `openssl rand -hex 32`)")
            return
        }
        for (index, secret) in secrets.enumerated() {
            check(secret.utf8.count >= 32, "hook.secret",
                  "entry \(index + 1) of \(secrets.count) must be at least 32 bytes, as every secret of the list (generate one with `openssl rand -hex 32`)")
        }
        check(Set(secrets).count == secrets.count, "hook.secret", "lists the same secret more than once")
    }

    /// docs/configuration.md#keys, `state.*`: every problem of the URL; a password only with PostgreSQL.
    package static func stateIssues(_ state: BridgeConfig.State, check: (Bool, String, @autoclosure () -> String) -> Void) {
        do {
            let url = try StateStoreURL(parsing: state.url)
            if case .postgres = url { return }
            check(state.password.isEmpty, "state.password", "is only for a PostgreSQL state.url")
        } catch {
            for problem in error.problems { check(false, "state.url", problem) }
        }
    }

    /// Kakao's admin keys are 32 hexadecimal characters, either case (docs/configuration.md#keys): anything else cannot be
    /// one, and would leave the webhook refusing every call Kakao makes, or open it to a guessable key.
    package static func isAdminKey(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
