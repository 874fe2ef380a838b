import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import OpenSSLCrypto
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// docs/api.md#keyless-signing-on-google-cloud (`firebase.signer: iam`), end to end: the real bridge with no key file,
/// against the metadata server and IAM Credentials stand-ins, which are as strict as Google (the metadata header,
/// tokens only the metadata server issued, the role to sign), and Identity Toolkit's stand-in, which accepts a kid-less
/// token signed by one of the account's Google-managed keys as Google does. Each failure class of
/// docs/errors.md#keyless-signing has its test here.
@Suite struct KeylessSigningTests {
    static func keyless(backend: Bool = true, configure: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in }) -> TestWorld.Options {
        var options = TestWorld.Options()
        options.keyless = true
        options.backend = backend
        options.firebase = true
        options.configure = configure
        return options
    }

    // MARK: The login

    @Test func aKeylessLoginPassesAllSixStepsAndIdentityToolkitAcceptsTheToken() async throws {
        try await TestWorld.with(Self.keyless()) { world in
            let metadata = try #require(world.metadata)
            let iam = try #require(world.iamCredentials)
            let ready = try await world.waitUntilReady()
            #expect(ready.status == 200)
            #expect(ready.json?["signer"]?.stringValue == "iam")
            #expect(world.config.firebase.serviceAccountFile.isEmpty)

            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text) / \(world.identityToolkit.lastRejection ?? "") / \(iam.lastRejection ?? "")")
            // Steps 4-6: Identity Toolkit accepted the kid-less token, and the backend confirmed the user through the hook.
            #expect(world.identityToolkit.acceptedTokens == 1, "\(world.identityToolkit.lastRejection ?? "")")
            #expect(reply.json?["firebase"]?["id_token"]?.stringValue?.isEmpty == false)
            #expect(reply.json?["login"]?["status"]?.int64Value == 200)

            // The token: no kid, iss = sub = the metadata server's account, signed by signBlob.
            let token = try #require(reply.json?["custom_token"]?.stringValue)
            let parts = token.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            let header = Base64URL.decode(parts[0]).flatMap(JSONValue.parse)
            #expect(header == .object(["alg": "RS256", "typ": "JWT"]))
            let payload = Base64URL.decode(parts[1]).flatMap(JSONValue.parse)
            #expect(payload?["iss"]?.stringValue == metadata.email)
            #expect(payload?["sub"]?.stringValue == metadata.email)
            let signature = try #require(Base64URL.decode(parts[2]))
            #expect(iam.publicKey.verifyRS256(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
            #expect(iam.signed == 1)

            // Account and project from the metadata server (once, at start), one access token for everything; the key
            // file's token endpoint is never asked.
            #expect(metadata.calls(.email) == 1)
            #expect(metadata.calls(.projectID) == 1)
            #expect(metadata.calls(.token) == 1)
            #expect(metadata.refusedWithoutFlavor == 0)
            #expect(world.googleToken.fetches == 0)
            // The Admin API (user sync) and signBlob were both called with the metadata server's token.
            let bearer = try #require(iam.lastAuthorization)
            #expect(bearer.hasPrefix("Bearer ya29.metadata-"))
            #expect(world.admin.lastAuthorization == bearer)
            #expect(world.users.user("kakao:1234567890")?.displayName == "Ryan")
        }
    }

    @Test func theConfiguredAccountAndProjectAreNotAskedFor() async throws {
        try await TestWorld.with(Self.keyless(backend: false) { config in
            config.firebase.projectID = "bridge-test"
        }) { world in
            let metadata = try #require(world.metadata)
            try await world.waitUntilReady()
            #expect(metadata.calls(.projectID) == 0)
            #expect(metadata.calls(.email) == 1)
            #expect(try await world.exchange(world.validToken()).status == 200)
        }
    }

    @Test func theKeyFileModeIsUnchanged() async throws {
        var options = TestWorld.Options()
        options.firebase = true
        try await TestWorld.with(options) { world in
            let ready = try await world.get("/readyz")
            #expect(ready.status == 200)
            #expect(ready.json?["signer"]?.stringValue == "key_file")
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200)
            let token = try #require(reply.json?["custom_token"]?.stringValue)
            let header = JSONValue.parse(try #require(Base64URL.decode(String(token.split(separator: ".")[0]))))
            #expect(header?["kid"]?.stringValue == world.account.privateKeyID)
            #expect(world.metadata == nil)
        }
    }

    // MARK: The metadata server

    /// The stand-in is as strict as Google's: no `Metadata-Flavor: Google`, no answer; and the bridge always sends it.
    @Test func theMetadataServerRefusesARequestWithoutItsHeader() async throws {
        try await TestWorld.with(Self.keyless(backend: false)) { world in
            let metadata = try #require(world.metadata)
            let base = world.config.firebase.metadataURL
            let bare = try await world.http.execute(HTTPRequest(method: .get, url: base + MetadataServerStandIn.emailPath))
            #expect(bare.status == 403)
            let proxied = try await world.http.execute(HTTPRequest(
                method: .get, url: base + MetadataServerStandIn.tokenPath,
                headers: [("Metadata-Flavor", "Google"), ("X-Forwarded-For", "203.0.113.9")]
            ))
            #expect(proxied.status == 403)
            #expect(metadata.refusedWithoutFlavor == 2)
            let flavoured = try await world.http.execute(HTTPRequest(
                method: .get, url: base + MetadataServerStandIn.emailPath, headers: [("Metadata-Flavor", "Google")]
            ))
            #expect(flavoured.status == 200)
            #expect(String(decoding: flavoured.body, as: UTF8.self) == metadata.email)

            // The bridge's own calls all carried the header.
            try await world.waitUntilReady()
            #expect(try await world.exchange(world.validToken()).status == 200)
            #expect(metadata.refusedWithoutFlavor == 2)
        }
    }

    /// Until the metadata server answers, the service is not ready and every login answers 503 `not_ready`; it turns
    /// ready by itself once the metadata server does.
    @Test func untilTheMetadataServerAnswersLoginsAreNotReady() async throws {
        var options = Self.keyless(backend: false)
        options.prepare = { set in set.metadata?.setFault(.httpStatus(503, body: "{}")) }
        try await TestWorld.with(options) { world in
            let metadata = try #require(world.metadata)
            try await Task.sleep(for: .milliseconds(300))
            let ready = try await world.get("/readyz")
            #expect(ready.status == 503)
            #expect(ready.code == "not_ready")
            #expect(ready.json?["detail"]?.stringValue?.contains("metadata server") == true, "\(ready.text)")
            #expect(try await world.get("/healthz").status == 200)
            let login = try await world.exchange(world.validToken())
            #expect(login.status == 503)
            #expect(login.code == "not_ready")
            #expect(login.isProblem)
            #expect(world.iamCredentials?.calls == 0)

            metadata.setFault(nil)
            #expect(try await world.waitUntilReady(timeout: .seconds(15)).status == 200)
            #expect(try await world.exchange(world.validToken()).status == 200)
        }
    }

    @Test func anUnreachableMetadataServerKeepsTheServiceNotReady() async throws {
        try await TestWorld.with(Self.keyless(backend: false) { config in
            config.firebase.metadataURL = "http://127.0.0.1:9"
        }) { world in
            try await Task.sleep(for: .milliseconds(500))
            let ready = try await world.get("/readyz")
            #expect(ready.status == 503)
            #expect(ready.json?["detail"]?.stringValue?.contains("iam_unavailable") == true, "\(ready.text)")
            #expect(try await world.exchange(world.validToken()).code == "not_ready")
        }
    }

    /// google-auth's `GCE_METADATA_HOST`: without `firebase.metadata_url`, the metadata server is `http://` + it.
    @Test func gceMetadataHostIsHonoured() async throws {
        try await TestWorld.with(Self.keyless(backend: false) { config in
            let url = config.firebase.metadataURL
            config.firebase.metadataURL = ""
            config.firebase.metadataHost = String(url.dropFirst("http://".count))
        }) { world in
            let ready = try await world.waitUntilReady()
            #expect(ready.status == 200)
            #expect(try await world.exchange(world.validToken()).status == 200)
            #expect(world.metadata?.calls(.email) == 1)
        }
        try Self.loaderHonoursGCEMetadataHost()
    }

    static func loaderHonoursGCEMetadataHost() throws {
        // What the loader makes of the variable, and what wins over it.
        let yaml = "kakao:\n  app_id: 1\nfirebase:\n  signer: iam\n"
        let fromVariable = try ConfigLoader.parse(yaml: yaml, environment: ["GCE_METADATA_HOST": "10.0.0.7:8080"])
        #expect(fromVariable.firebase.effectiveMetadataURL == "http://10.0.0.7:8080")
        let fromOldName = try ConfigLoader.parse(yaml: yaml, environment: ["GCE_METADATA_ROOT": "10.0.0.8"])
        #expect(fromOldName.firebase.effectiveMetadataURL == "http://10.0.0.8")
        let configured = try ConfigLoader.parse(
            yaml: yaml, environment: ["GCE_METADATA_HOST": "10.0.0.7:8080", "BRIDGE_FIREBASE_METADATA_URL": "http://169.254.169.254"]
        )
        #expect(configured.firebase.effectiveMetadataURL == "http://169.254.169.254")
        #expect(try ConfigLoader.parse(yaml: yaml, environment: [:]).firebase.effectiveMetadataURL == "http://metadata.google.internal")
    }

    // MARK: signBlob's failures

    /// 403: the account may not sign as itself; the detail says which role it lacks and which API.
    @Test func aForbiddenSignBlobIsIAMRejectedNamingTheRole() async throws {
        try await TestWorld.with(Self.keyless(backend: false)) { world in
            try await world.waitUntilReady()
            world.iamCredentials?.denyTokenCreator()
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 502)
            #expect(reply.code == "iam_rejected")
            #expect(reply.isProblem)
            let detail = reply.json?["detail"]?.stringValue ?? ""
            #expect(detail.contains("roles/iam.serviceAccountTokenCreator"), "\(detail)")
            #expect(detail.contains("IAM Service Account Credentials API"), "\(detail)")
            #expect(detail.contains("403") && detail.contains("PERMISSION_DENIED"), "\(detail)")
            // Not retried: a refusal is final.
            #expect(world.iamCredentials?.calls == 1)
            #expect(world.identityToolkit.exchangeCalls == 0)
        }
    }

    /// Another 4xx carries Google's status: here a token the metadata server no longer vouches for (401).
    @Test func aTokenTheMetadataServerDidNotIssueIsRefused() async throws {
        try await TestWorld.with(Self.keyless(backend: false)) { world in
            try await world.waitUntilReady()
            world.metadata?.revokeAll()
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 502)
            #expect(reply.code == "iam_rejected")
            let detail = reply.json?["detail"]?.stringValue ?? ""
            #expect(detail.contains("401") && detail.contains("UNAUTHENTICATED"), "\(detail)")
            #expect(!detail.contains("roles/iam.serviceAccountTokenCreator"))
        }
    }

    @Test func aServerErrorOnceIsRetried() async throws {
        try await TestWorld.with(Self.keyless()) { world in
            try await world.waitUntilReady()
            let iam = try #require(world.iamCredentials)
            iam.setFault(.httpStatus(503, body: #"{"error":{"code":503,"message":"unavailable","status":"UNAVAILABLE"}}"#), times: 1)
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(iam.calls == 2)
            #expect(iam.signed == 1)
            #expect(world.identityToolkit.acceptedTokens == 1)
        }
    }

    @Test(arguments: [500, 502, 504]) func serverErrorsTwiceAreIAMUnavailable(status: Int) async throws {
        try await TestWorld.with(Self.keyless(backend: false)) { world in
            try await world.waitUntilReady()
            let iam = try #require(world.iamCredentials)
            iam.setFault(.httpStatus(status, body: "{}"), times: 2)
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 502)
            #expect(reply.code == "iam_unavailable")
            #expect(reply.json?["detail"]?.stringValue?.contains("HTTP \(status)") == true, "\(reply.text)")
            // One retry, no more.
            #expect(iam.calls == 2)
            #expect(iam.signed == 0)
        }
    }

    @Test func anUnreachableIAMAPIIsIAMUnavailable() async throws {
        try await TestWorld.with(Self.keyless(backend: false)) { world in
            try await world.waitUntilReady()
            await world.servers.iamCredentials?.stop()
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 502)
            #expect(reply.code == "iam_unavailable")
            #expect(reply.json?["detail"]?.stringValue?.contains("unreachable") == true, "\(reply.text)")
        }
    }

    // MARK: The access token

    /// The one token cache serves signing and the Admin API; when a fresh token cannot be had, the Admin API's calls
    /// fail as docs/errors.md#from-googles-token-endpoint-and-the-admin-api says (`firebase_admin_*`) and signing as
    /// docs/errors.md#keyless-signing says (`iam_*`).
    @Test func aTokenFetchFailureIsTheAdminAPIsForTheSyncAndIAMsForSigning() async throws {
        let clock = ManualUnixClock()
        var options = Self.keyless(backend: false)
        options.clock = clock.clock
        options.configure = { $0.firebase.userSync = .required }
        try await TestWorld.with(options) { world in
            try await world.waitUntilReady()
            let metadata = try #require(world.metadata)
            #expect(try await world.exchange(world.validToken(id: 1)).status == 200)
            // The held token is past its refresh time, and the metadata server refuses a new one.
            clock.advance(3600)
            metadata.setFault(.httpStatus(404, body: "not found"), endpoint: .token)
            let required = try await world.exchange(world.validToken(id: 2))
            #expect(required.status == 502)
            #expect(required.code == "firebase_admin_rejected", "\(required.text)")
            #expect(required.json?["detail"]?.stringValue?.contains("metadata server") == true)
        }
        options.configure = { $0.firebase.userSync = .off }
        try await TestWorld.with(options) { world in
            try await world.waitUntilReady()
            let metadata = try #require(world.metadata)
            clock.advance(3600)
            metadata.setFault(.httpStatus(404, body: "not found"), endpoint: .token)
            let signing = try await world.exchange(world.validToken(id: 3))
            #expect(signing.status == 502)
            #expect(signing.code == "iam_rejected", "\(signing.text)")
            metadata.setFault(.httpStatus(503, body: "{}"), endpoint: .token)
            let unavailable = try await world.exchange(world.validToken(id: 4))
            #expect(unavailable.code == "iam_unavailable", "\(unavailable.text)")
            #expect(world.iamCredentials?.calls == 0)
        }
    }

    // MARK: Logs

    @Test func noTokenOrAccountEmailReachesALogLine() async throws {
        var options = Self.keyless()
        options.hook = true
        try await TestWorld.with(options) { world in
            try await world.waitUntilReady()
            let metadata = try #require(world.metadata)
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200)
            world.iamCredentials?.denyTokenCreator()
            #expect(try await world.exchange(world.validToken(id: 9)).code == "iam_rejected")
            let bearer = String(try #require(world.iamCredentials?.lastAuthorization).dropFirst("Bearer ".count))
            var secrets = [bearer, metadata.email]
            if let token = reply.json?["custom_token"]?.stringValue { secrets.append(token) }
            let lines = world.bridge.logs.lines
            #expect(lines.contains { $0.contains("iam_rejected") })
            for line in lines {
                for secret in secrets { #expect(!line.contains(secret), "log line leaks: \(line.prefix(200))") }
            }
        }
    }
}

/// docs/configuration.md#keyless-signing: the signer's keys, validated with everything else and reported at once.
@Suite struct KeylessConfigTests {
    static func problems(_ yaml: String, environment: [String: String] = [:]) -> [String] {
        do {
            _ = try ConfigLoader.parse(yaml: yaml, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func signerIAMWithAKeyFileIsRefusedWithTheOtherProblems() {
        let problems = Self.problems("""
            kakao:
              app_id: 0
            firebase:
              signer: iam
              service_account_file: /etc/kakao-bridge/service-account.json
            log:
              level: loud
            """)
        #expect(problems.contains { $0.hasPrefix("firebase.service_account_file: must be empty with firebase.signer: iam") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("kakao.app_id") })
        #expect(problems.contains { $0.hasPrefix("log.level") })
    }

    @Test func signerIAMNeedsNoKeyFileAndKeyFileStillDoes() throws {
        let config = try ConfigLoader.parse(yaml: "kakao:\n  app_id: 1\nfirebase:\n  signer: iam\n", environment: [:])
        #expect(config.firebase.signer == .iam)
        #expect(config.firebase.iamCredentialsURL == "https://iamcredentials.googleapis.com")
        #expect(Self.problems("kakao:\n  app_id: 1\n") == [
            "firebase.service_account_file: required (path to the Google service-account JSON key file)",
        ])
        #expect(Self.problems("kakao:\n  app_id: 1\nfirebase:\n  signer: hsm\n").first?.contains("key_file, iam") == true)
    }

    @Test func eachKeylessRuleIsChecked() {
        let iam = "kakao:\n  app_id: 1\nfirebase:\n  signer: iam\n"
        // The metadata server is plain HTTP off loopback by design; the IAM API is not.
        #expect(Self.problems(iam + "  metadata_url: http://169.254.169.254\n").isEmpty)
        #expect(Self.problems(iam + "  iam_credentials_url: http://iam.example.com\n").first?.hasPrefix("firebase.iam_credentials_url: must be https://") == true)
        #expect(Self.problems(iam + "  metadata_url: metadata\n").first?.hasPrefix("firebase.metadata_url") == true)
        #expect(Self.problems(iam + "  service_account_email: bridge@project.iam.gserviceaccount.com\n").isEmpty)
        #expect(Self.problems(iam + "  service_account_email: not/an@email\n").first?.hasPrefix("firebase.service_account_email") == true)
        #expect(Self.problems(iam, environment: ["GCE_METADATA_HOST": "host/path"]).first?.hasPrefix("GCE_METADATA_HOST: must be a host") == true)
        #expect(Self.problems(iam + "  emulator_host: 127.0.0.1:9099\n").first?.hasPrefix("firebase.signer: iam cannot be used with the Auth Emulator") == true)
        // With a key file, the account is the file's.
        let keyFile = "kakao:\n  app_id: 1\nfirebase:\n  service_account_file: /x.json\n  service_account_email: a@b.iam.gserviceaccount.com\n"
        #expect(Self.problems(keyFile).first?.hasPrefix("firebase.service_account_email: is only for firebase.signer: iam") == true)
    }

    @Test func standardBase64MatchesFoundations() {
        for length in [0, 1, 2, 3, 4, 31, 32, 33, 256] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let encoded = Base64Standard.encode(bytes)
            #expect(encoded == Data(bytes).base64EncodedString())
            #expect(Base64Standard.decode(encoded) == bytes)
        }
        #expect(Base64Standard.decode("a-b_") == nil)
        #expect(Base64Standard.decode("YQ=") == nil)
        #expect(Base64Standard.decode("YQ") == [UInt8(ascii: "a")])
    }
}
