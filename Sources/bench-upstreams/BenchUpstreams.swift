import ArgumentParser
import Foundation
import StandIns

/// The benchmark's upstreams (scripts/bench/run): the stand-ins in a process of their own, so that the service under load
/// is measured alone. Writes the tokens and ready-made configurations into `--out`, then serves until SIGTERM or SIGINT.
@main
struct BenchUpstreams: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-upstreams",
        abstract: "Run the stand-ins for the benchmark (scripts/bench/run) until SIGTERM."
    )

    static let appID: Int64 = 424242
    static let apiKey = "bench-web-api-key"
    static let adminKey = "0123456789abcdef0123456789abcdef"

    @Option(help: "Directory for tokens.txt, bridge.yaml, bridge-hook.yaml, hook-secret.txt, iam.env and the service account.")
    var out: String

    @Option(help: "Kakao users, one valid token each.")
    var users = 20_000

    @Option(name: .customLong("kakao-delay-ms"), help: "Every Kakao answer waits this long first.")
    var kakaoDelayMS = 0

    @Option(help: "The port the service will listen on (written into the configurations).")
    var port = 18080

    @Option(
        name: .customLong("id-tokens"),
        help: "Kakao ID tokens of distinct users to write into id-tokens.txt, with bridge-oidc.yaml (the oidc scenario); 0: none."
    )
    var idTokens = 0

    @Flag(
        name: .customLong("oidc-nonces"),
        help: "Each ID token carries a nonce in the service's format, and bridge-oidc.yaml requires nonces (their single use goes through the state store)."
    )
    var oidcNonces = false

    @Flag(
        name: .customLong("backend-hook"), inversion: .prefixedNo,
        help: "The backend stand-in calls the service's hook on each login, as a real backend would (scripts/login-path turns it off to see one request alone)."
    )
    var backendHook = true

    func validate() throws {
        guard (1...1_000_000).contains(users) else { throw ValidationError("--users must be 1 to 1,000,000") }
        guard (0...10_000).contains(kakaoDelayMS) else { throw ValidationError("--kakao-delay-ms must be 0 to 10,000") }
        guard (0...200_000).contains(idTokens) else { throw ValidationError("--id-tokens must be 0 to 200,000") }
    }

    func run() async throws {
        let directory = URL(fileURLWithPath: out, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let account = try SandboxServiceAccount.generate(projectID: "kakao-bridge-bench")
        // Keyless too: the metadata server and IAM signBlob, for the iam scenario and BENCH_SIGNER=iam.
        let set = try await StandInSet.start(appID: Self.appID, webAPIKey: Self.apiKey, account: account, keyless: true)
        let kakao = set.kakao
        if kakaoDelayMS > 0 { kakao.setFault(.delay(.milliseconds(kakaoDelayMS)), endpoint: .both) }
        var tokens = ""
        tokens.reserveCapacity(users * 56)
        for index in 0..<users {
            let id = Int64(3_000_000_000) + Int64(index)
            tokens += kakao.issueToken(for: KakaoAccount(
                id: id, nickname: "user\(index)", email: "user\(index)@example.com",
                profileImageURL: "https://k.kakaocdn.net/dn/\(index)/img_640x640.jpg"
            )) + "\n"
        }
        let secret = "bench-hook-" + UUID().uuidString
        let accountFile = directory.appendingPathComponent("service-account.json")
        // `set.account`: its `token_uri` names the token-endpoint stand-in.
        try set.account.writeKeyFile(to: accountFile.path)
        try Data(tokens.utf8).write(to: directory.appendingPathComponent("tokens.txt"))
        // firebase.signer: iam over any of the configurations below, as BRIDGE_* variables (they win over the file):
        // no key file, the account and project from the metadata stand-in, each custom token signed by signBlob.
        try Data("""
            BRIDGE_FIREBASE_SIGNER=iam
            BRIDGE_FIREBASE_SERVICE_ACCOUNT_FILE=
            BRIDGE_FIREBASE_METADATA_URL=\(set.metadataURL ?? "")
            BRIDGE_FIREBASE_IAM_CREDENTIALS_URL=\(set.iamCredentialsURL ?? "")

            """.utf8).write(to: directory.appendingPathComponent("iam.env"))
        try Data(secret.utf8).write(to: directory.appendingPathComponent("hook-secret.txt"))

        let common = Self.yaml(
            port: port, kakao: set.kakaoBaseURL, certificates: set.certificatesURL,
            identityToolkit: set.identityToolkitBaseURL, accountFile: accountFile.path
        )
        try write(common, "bridge-hook.yaml", in: directory, extra: """
            firebase_web_api_key: \(Self.apiKey)
            hook_secret: \(secret)
            """)
        try write(common, "bridge-full.yaml", in: directory, extra: """
            firebase_web_api_key: \(Self.apiKey)
            hook_secret: \(secret)
            backend_url: \(set.backendURL)
            """)
        // The unlink scenario: the webhook on, the backend's unlink URL failing (every step stays pending and is retried).
        set.backend.configureUnlink(secret: secret)
        set.backend.setUnlinkFault(.httpStatus(503, body: "{}"))
        try write(common, "bridge-unlink.yaml", in: directory, extra: """
            hook_secret: \(secret)
            """, more: """
            kakao_admin_key: \(Self.adminKey)
            backend_unlink_url: \(set.backendUnlinkURL)
            """)
        if backendHook { set.backend.configureHook(url: "http://127.0.0.1:\(port)/v1/login-complete", secret: secret) }
        if idTokens > 0 {
            let nonceSecret = oidcNonces ? Array(UUID().uuidString.utf8) + Array(UUID().uuidString.utf8) : nil
            try await Self.writeIDTokens(idTokens, kakao: kakao, nonceSecret: nonceSecret, in: directory)
            try write(Self.oidcYAML(common, jwksURL: set.kakaoJWKSURL, nonceSecret: nonceSecret), "bridge-oidc.yaml", in: directory, extra: "")
        }
        // Written last: the script waits for this file.
        try write(common, "bridge.yaml", in: directory, extra: "")

        await Self.waitForTermination()
        await set.stop()
    }

    /// Steps 2–3 only; the `extra` lines (web API key, hook secret, backend) fill the placeholders below.
    private static func yaml(port: Int, kakao: String, certificates: String, identityToolkit: String, accountFile: String) -> String {
        """
        # Written by `bench-upstreams`: the service against the benchmark's stand-ins.
        server:
          host: 127.0.0.1
          port: \(port)
          shutdown_grace_seconds: 1
        kakao:
          app_id: \(appID)
          api_base_url: \(kakao)
        firebase:
          service_account_file: \(accountFile)
          identity_toolkit_url: \(identityToolkit)
          securetoken_certs_url: \(certificates)
          web_api_key: "{firebase_web_api_key}"
          # The scenarios measure the login path of earlier rounds: Kakao, minting, the hook. User sync (an Admin API
          # lookup per new user) would add a third upstream call to every login of 20,000 distinct users.
          user_sync: "off"
        backend:
          login_complete_url: "{backend_url}"
        hook:
          secret: "{hook_secret}"
        rate_limit:
          per_client_per_minute: 0
        log:
          level: warning

        """
    }

    // MARK: The oidc scenario

    static let oidcAudience = "bench-native-app-key"

    /// Distinct users, so that no ID token repeats and the verification cache sees no hit; signed on every core, since
    /// each is an RSA signature.
    private static func writeIDTokens(_ count: Int, kakao: KakaoStandIn, nonceSecret: [UInt8]?, in directory: URL) async throws {
        let nonceExpiry = Int64(Date().timeIntervalSince1970) + 3600
        let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let lines = try await withThrowingTaskGroup(of: String.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var text = ""
                    for index in stride(from: worker, to: count, by: workers) {
                        let user = KakaoAccount(
                            id: Int64(5_000_000_000) + Int64(index), nickname: "oidc\(index)", email: "oidc\(index)@example.com",
                            profileImageURL: "https://k.kakaocdn.net/dn/oidc\(index)/img_640x640.jpg"
                        )
                        let nonce = nonceSecret.map { BenchNonces.make(secret: $0, expiresAt: nonceExpiry) }
                        text += try kakao.issueIDToken(for: user, audience: oidcAudience, nonce: nonce) + "\n"
                    }
                    return text
                }
            }
            var all = ""
            for try await part in group { all += part }
            return all
        }
        try Data(lines.utf8).write(to: directory.appendingPathComponent("id-tokens.txt"))
    }

    /// `bridge.yaml` with OpenID Connect on for the tokens above. Without `--oidc-nonces` the nonce check is off (the
    /// tokens are made before the service runs); with it, the tokens carry nonces made with the secret written here.
    private static func oidcYAML(_ common: String, jwksURL: String, nonceSecret: [UInt8]?) -> String {
        let nonce = nonceSecret.map { "    require_nonce: true\n    nonce_secret: \(String(decoding: $0, as: UTF8.self))\n" }
            ?? "    require_nonce: false\n"
        return common.replacingOccurrences(of: "  app_id: \(appID)\n", with: """
              app_id: \(appID)
              oidc:
                audiences: [\(oidcAudience)]
                jwks_url: \(jwksURL)

            """ + nonce)
    }

    private func write(_ template: String, _ name: String, in directory: URL, extra: String, more: String = "") throws {
        var values: [String: String] = [:]
        var template = template
        for line in more.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            switch parts[0] {
            case "kakao_admin_key": template = template.replacingOccurrences(of: "  app_id: \(Self.appID)\n", with: "  app_id: \(Self.appID)\n  admin_key: \(value)\n")
            case "backend_unlink_url": template = template.replacingOccurrences(of: "backend:\n", with: "backend:\n  unlink_url: \(value)\n")
            default: break
            }
        }
        for line in extra.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        var text = template
        for placeholder in ["firebase_web_api_key", "hook_secret", "backend_url"] {
            text = text.replacingOccurrences(of: "{\(placeholder)}", with: values[placeholder] ?? "")
        }
        let final = directory.appendingPathComponent(name)
        let temporary = directory.appendingPathComponent(name + ".tmp")
        try Data(text.utf8).write(to: temporary)
        // The service refuses a configuration file that others can read when it holds a secret
        // (docs/configuration.md#secrets-in-files); these hold the hook secret and the Web API key.
        guard chmod(temporary.path, 0o600) == 0, rename(temporary.path, final.path) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    private static func waitForTermination() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.finish() }
            source.resume()
            sources.append(source)
        }
        for await _ in stream {}
        sources.forEach { $0.cancel() }
    }
}
