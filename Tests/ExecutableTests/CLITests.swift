import BridgeJSON
import BridgeSupport
import BuildVersion
import CurlHTTP
import Foundation
import StandIns
import Synchronization
import Testing
import EndToEndSupport

/// The built `kakao-bridge` executable, run as a person runs it (docs/configuration.md#command-line): exit codes,
/// stdout, signals.
@Suite("Command line", .serialized)
struct CLITests {
    @Test func demoWalksAllSixStepsTheUserRecordAndTheRefusalsWithoutPrintingATokenOrTheRecordsEmail() async throws {
        // Generous: alone the demo takes about a second, but the whole suite shares two cores with it.
        let run = try await CLIProcess.run(["demo"], timeout: .seconds(300))
        #expect(run.status == 0, "demo failed:\n\(run.stdout)\n\(run.stderr)")
        for step in 1...6 {
            #expect(run.stdout.contains("Step \(step) "), "step \(step) missing from:\n\(run.stdout)")
        }
        #expect(!run.stdout.contains("FAILED"))
        #expect(!run.stdout.contains("not reached"))
        #expect(run.stdout.contains("Refused: a token issued to another Kakao app"))
        #expect(run.stdout.contains("Refused: an expired token"))
        #expect(run.stdout.contains("401 kakao_app_mismatch"))
        #expect(run.stdout.contains("401 invalid_kakao_token"))
        #expect(run.stdout.contains("Refused: a user whose Firebase account is disabled"))
        #expect(run.stdout.contains("403 user_disabled"))
        // The record the user sync wrote: the Kakao nickname and picture, the email shortened.
        #expect(run.stdout.contains("Firebase user record"))
        #expect(run.stdout.contains("displayName      Ryan"))
        #expect(run.stdout.contains("photoUrl         https://k.kakaocdn.net/dn/sandbox/img_640x640.jpg"))
        #expect(run.stdout.contains("email            r…@example.com   emailVerified true"))
        // Shortened everywhere the demo prints it, the hook's answer at step 6 included.
        #expect(!run.stdout.contains("ryan@example.com"))
        // The lifecycle's end: Kakao's webhook, what it left in Firebase and at the backend, the cached token refused.
        #expect(run.stdout.contains("Unlink: user 4242000001 unlinks the app"))
        #expect(run.stdout.contains("backend told     {\"kakao_id\":4242000001"))
        #expect(run.stdout.contains("Refused: the unlinked user's Kakao token"))
        #expect(run.stdout.contains("ok: refused with 401 invalid_kakao_id_token (the unlink is remembered for a day)"))
        // Kakao's security event: a session revoked at Kakao refuses the next hook call.
        #expect(run.stdout.contains("ok: a session revoked at Kakao refuses the next hook call"))
        #expect(run.stdout.contains("hook again       the same ID token -> 401 id_token_revoked"))
        // The end: each person's account deleted, the social login's link revoked (docs/api.md#deleting-an-account).
        for provider in ["Kakao", "Naver", "LINE"] {
            #expect(run.stdout.contains("Delete: the backend deletes the \(provider) user's account"))
        }
        #expect(run.stdout.contains("\"event\":\"deleted\""))
        #expect(run.stdout.contains("demo: all six steps, the Firebase user record, the three refusals, the security event, the unlink and the three deletions behaved as expected."))
        let tokenLike = try Regex("[A-Za-z0-9_-]{40,}")
        let printed = run.stdout + run.stderr
        let leaks = printed.matches(of: tokenLike).map { String(printed[$0.range]) }
        #expect(leaks.isEmpty, "token-like runs printed: \(leaks)")
    }

    @Test func checkConfigListsEveryProblemAndExits78() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("bad.yaml", """
            server:
              port: 70000
            kakao:
              app_id: -5
              colour: blue
            log:
              level: loud
            """)
        let run = try await CLIProcess.run(["check-config", "--config", file], timeout: .seconds(30))
        #expect(run.status == 78)
        for problem in ["server.port", "kakao.app_id", "colour", "log.level", "firebase.service_account_file"] {
            #expect(run.stderr.contains(problem), "\(problem) not listed in:\n\(run.stderr)")
        }
    }

    /// docs/operations.md#versions: the release and the commit of the build.
    @Test func versionFlagPrintsTheReleaseAndTheCommitAndExits0() async throws {
        let run = try await CLIProcess.run(["--version"], timeout: .seconds(30))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "kakao-bridge \(BuildVersion.version) (commit \(BuildVersion.commit))\n")
    }

    @Test func checkConfigRefusesAMissingServiceAccountFile() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.configFile(account: directory.path + "/missing.json")
        let run = try await CLIProcess.run(["check-config", "--config", file], timeout: .seconds(30))
        #expect(run.status == 78)
        #expect(run.stderr.contains("firebase.service_account_file"))
    }

    @Test func checkConfigAcceptsAGoodConfiguration() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.configFile()
        let run = try await CLIProcess.run(["check-config", "--config", file], timeout: .seconds(30))
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("is valid"))
    }

    /// docs/operations.md#shared-state: check-config connects to the store. A SQLite file it can make is usable; one
    /// under a path that cannot exist, or a PostgreSQL nobody listens on, is not (exit 78, saying state.url).
    @Test func checkConfigReachesTheStateStore() async throws {
        let directory = try TemporaryDirectory()
        // The one writer of a store-only configuration (the names are for the reader of this test).
        func config(_ name: String, _ url: String) throws -> String { try OpsCommandLineTests.config(directory, store: url) }
        let good = try await CLIProcess.run(["check-config", "--config", try config("good", "sqlite://\(directory.path)/state.db")], timeout: .seconds(60))
        #expect(good.status == 0, "\(good.stdout)\n\(good.stderr)")
        #expect(good.stdout.contains("the state store answers"))
        let missing = try await CLIProcess.run(
            ["check-config", "--config", try config("missing", "sqlite://\(directory.path)/no/such/dir/state.db")], timeout: .seconds(60)
        )
        #expect(missing.status == 78, "\(missing.stdout)\n\(missing.stderr)")
        #expect(missing.stderr.contains("state"))
        let nobody = try await CLIProcess.run(
            ["check-config", "--config", try config("nobody", "postgres://kb@127.0.0.1:9/kb?sslmode=disable")], timeout: .seconds(60)
        )
        #expect(nobody.status == 78, "\(nobody.stdout)\n\(nobody.stderr)")
        #expect(nobody.stderr.contains("state store"))
    }

    /// With the memory store there is no queue another process can read: `unlinks` says so and exits non-zero.
    @Test func unlinksRefusesTheMemoryStore() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.configFile()
        let run = try await CLIProcess.run(["unlinks", "--config", file], timeout: .seconds(30))
        #expect(run.status == 78, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("state.url is empty"))
        #expect(run.stdout.isEmpty)
    }

    @Test func sandboxServesThePrintedCurlLineAndStopsOnSIGTERM() async throws {
        let sandbox = try CLIProcess.start(["sandbox", "--port", "0"])
        defer { sandbox.kill() }
        let curl = try await sandbox.waitForLine(timeout: .seconds(180)) {
            $0.hasPrefix("  curl -s -H 'Authorization: Bearer ") && $0.hasSuffix("/v1/token-exchange")
        }
        // `  curl -s -H 'Authorization: Bearer <token>' http://127.0.0.1:<port>/v1/token-exchange`
        let quoted = curl.split(separator: "'")
        try #require(quoted.count == 3)
        let authorization = quoted[1].split(separator: " ", maxSplits: 1)
        let url = quoted[2].trimmingCharacters(in: .whitespaces)
        try #require(authorization.count == 2 && authorization[0] == "Authorization:")
        let bearer = String(authorization[1].dropFirst("Bearer ".count))

        let http = CurlHTTPClient()
        defer { http.shutdown() }
        let response = try await http.execute(CurlHTTP.HTTPRequest(
            method: .get, url: url, headers: [("Authorization", "Bearer " + bearer)], timeout: .seconds(20)
        ))
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(response.status == 200, "\(body)")
        #expect(body.contains("\"id_token\""))
        #expect(body.contains("\"login\""))

        // The printed webhook line, as Kakao calls it, revokes the user's sessions: the printed lookup line shows a
        // validSince no earlier than the call.
        let webhook = try #require(sandbox.stdout.split(separator: "\n").first { $0.hasPrefix("  curl -s -H 'Authorization: KakaoAK ") })
        let webhookParts = webhook.split(separator: "'")
        try #require(webhookParts.count == 4)
        let lookup = try #require(sandbox.stdout.split(separator: "\n").first { $0.contains("accounts:lookup") })
        let lookupParts = lookup.split(separator: "'")
        try #require(lookupParts.count == 7)
        func readValidSince() async throws -> Int64? {
            let reply = try await http.execute(CurlHTTP.HTTPRequest(
                method: .post, url: lookupParts[6].trimmingCharacters(in: .whitespaces),
                headers: [("Authorization", "Bearer owner"), ("Content-Type", "application/json")],
                body: Array(lookupParts[5].utf8), timeout: .seconds(20)
            ))
            let user = JSONValue.parse(reply.body)?["users"]?.arrayValue?.first
            return user?["validSince"]?.stringValue.flatMap { Int64($0) }
        }
        let before = try #require(try await readValidSince())
        try await Task.sleep(for: .milliseconds(1100))
        let unlinked = try await http.execute(CurlHTTP.HTTPRequest(
            method: .get, url: String(webhookParts[3]),
            headers: [("Authorization", String(webhookParts[1].dropFirst("Authorization: ".count)))], timeout: .seconds(20)
        ))
        #expect(unlinked.status == 200, "\(String(decoding: unlinked.body, as: UTF8.self))")
        #expect(try #require(try await readValidSince()) > before)

        // A second sandbox on the same port explains what to do instead of a stack of NIO errors.
        let port = try #require(url.split(separator: ":").last?.split(separator: "/").first.map(String.init))
        let second = try await CLIProcess.run(["sandbox", "--port", port], timeout: .seconds(180))
        #expect(second.status != 0)
        #expect(second.stderr.contains("already in use") && second.stderr.contains("--port"), "\(second.stderr)")

        let (status, took) = try await sandbox.terminate(waitingUpTo: .seconds(60))
        #expect(status == 0, "sandbox exited \(status):\n\(sandbox.stdout)\n\(sandbox.stderr)")
        #expect(took < .seconds(5), "the sandbox took \(took) to stop after SIGTERM")
        #expect(sandbox.stdout.contains("kakao-bridge sandbox: stopped."))
    }
}
