import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import HTTPTypes
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// The user sync of docs/api.md#user-sync, rule by rule, at the router's depth with the in-memory Admin
/// API and token endpoint. The wire (Google's paths, bodies and errors) is `AdminEndToEndTests`' business.
@Suite("User sync")
struct UserSyncTests {
    static let uid = "kakao:1234567890"
    static let photo = "https://k.kakaocdn.net/dn/profile.jpg"

    static func steps(_ mode: String = "best_effort", firebase: Bool = true, _ change: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in })
        -> RouterWorld.Options
    {
        var options = RouterWorld.Options()
        options.firebase = firebase
        options.configure = { config in
            config.firebase.userSync = .init(rawValue: mode)!
            change(&config)
        }
        return options
    }

    @Test func aFirstLoginCreatesTheUserWithTheKakaoProfile() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            world.identityToolkit.reportNewUser(false)
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            let user = try #require(world.admin.user(Self.uid))
            #expect(user.displayName == "Ryan")
            #expect(user.photoURL == Self.photo)
            #expect(user.email == "ryan@example.com")
            #expect(user.emailVerified)
            #expect(world.admin.calls == [
                .lookUp(.uid(Self.uid)),
                .create(NewFirebaseUser(
                    uid: Self.uid, displayName: "Ryan", photoURL: Self.photo, email: "ryan@example.com", emailVerified: true
                )),
            ])
            // Identity Toolkit saw an existing user; the login created it all the same
            // (docs/api.md#get-v1token-exchange).
            #expect(reply.json?["firebase"]?["is_new_user"] == .bool(true))
            let again = try await world.exchange(world.validToken())
            #expect(again.json?["firebase"]?["is_new_user"] == .bool(false))
        }
    }

    @Test func theLegacyRouteSyncsToo() async throws {
        try await RouterWorld.with(Self.steps(firebase: false)) { world async throws in
            let reply = try await world.get("/v1/kakao/" + world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(world.admin.user(Self.uid)?.displayName == "Ryan")
        }
    }

    @Test func anUnverifiedEmailIsNeverWritten() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            #expect(try await world.exchange(world.validToken(emailVerified: false)).status == 200)
            let user = try #require(world.admin.user(Self.uid))
            #expect(user.email == nil)
            #expect(!user.emailVerified)
        }
    }

    @Test func emailExistsOnCreateCreatesTheUserWithoutTheEmail() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            world.admin.takeEmail("ryan@example.com")
            #expect(try await world.exchange(world.validToken()).status == 200)
            let user = try #require(world.admin.user(Self.uid))
            #expect(user.email == nil)
            #expect(user.displayName == "Ryan")
            #expect(world.admin.calls.count == 3)
            #expect(world.admin.calls.last == .create(NewFirebaseUser(uid: Self.uid, displayName: "Ryan", photoURL: Self.photo)))
        }
    }

    @Test func anExistingUserGetsOnlyWhatChanged() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            world.admin.seed(FirebaseUserRecord(
                uid: Self.uid, displayName: "Old name", photoURL: Self.photo, email: "someone@else.example", emailVerified: true
            ))
            world.identityToolkit.reportNewUser(false)
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200)
            var expected = FirebaseUserUpdate(uid: Self.uid)
            expected.displayName = "Ryan"
            #expect(world.admin.calls == [.lookUp(.uid(Self.uid)), .update(expected)])
            // Never over an existing email.
            #expect(world.admin.user(Self.uid)?.email == "someone@else.example")
            #expect(reply.json?["firebase"]?["is_new_user"] == .bool(false))
        }
    }

    @Test func aUserInStepIsNotUpdated() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            world.admin.seed(FirebaseUserRecord(
                uid: Self.uid, displayName: "Ryan", photoURL: Self.photo, email: "ryan@example.com", emailVerified: true
            ))
            #expect(try await world.exchange(world.validToken()).status == 200)
            #expect(world.admin.calls == [.lookUp(.uid(Self.uid))])
        }
    }

    @Test func theEmailIsSetOnlyWhenTheUserHasNone() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, displayName: "Ryan", photoURL: Self.photo))
            #expect(try await world.exchange(world.validToken()).status == 200)
            var expected = FirebaseUserUpdate(uid: Self.uid)
            expected.email = "ryan@example.com"
            expected.emailVerified = true
            #expect(world.admin.calls.last == .update(expected))
            #expect(world.admin.user(Self.uid)?.email == "ryan@example.com")
        }
    }

    @Test func emailExistsOnUpdateRepeatsTheUpdateWithoutTheEmail() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, displayName: "Old", photoURL: Self.photo))
            world.admin.takeEmail("ryan@example.com")
            #expect(try await world.exchange(world.validToken()).status == 200)
            var withEmail = FirebaseUserUpdate(uid: Self.uid)
            withEmail.displayName = "Ryan"
            withEmail.email = "ryan@example.com"
            withEmail.emailVerified = true
            #expect(world.admin.calls == [.lookUp(.uid(Self.uid)), .update(withEmail), .update(withEmail.withoutEmail)])
            #expect(world.admin.user(Self.uid)?.displayName == "Ryan")
            #expect(world.admin.user(Self.uid)?.email == nil)
        }
    }

    @Test func aNicknameKakaoNoLongerReturnsIsDeleted() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, displayName: "Ryan", photoURL: Self.photo, email: "r@x.example"))
            #expect(try await world.exchange(world.validToken(nickname: nil)).status == 200)
            var expected = FirebaseUserUpdate(uid: Self.uid)
            expected.deleteAttributes = [.displayName]
            #expect(world.admin.calls.last == .update(expected))
        }
    }

    @Test(arguments: ["best_effort", "required"])
    func aDisabledUserIsRefusedOnEveryRoute(mode: String) async throws {
        try await RouterWorld.with(Self.steps(mode)) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, displayName: "Ryan", disabled: true))
            let token = world.validToken()
            let reply = try await world.exchange(token)
            ErrorMappingTests.expectProblem(reply, 403, "user_disabled")
            #expect(!reply.text.contains("custom_token"))
            ErrorMappingTests.expectProblem(try await world.get("/v1/kakao/" + token), 403, "user_disabled")
            #expect(world.identityToolkit.calls == 0)
            // Not remembered: re-enabling the user takes effect at the next login.
            world.admin.seed(FirebaseUserRecord(uid: Self.uid, displayName: "Ryan", photoURL: Self.photo, email: "ryan@example.com"))
            #expect(try await world.exchange(token).status == 200)
        }
    }

    @Test func step4UserDisabledIsUserDisabled() async throws {
        try await RouterWorld.with(Self.steps("off")) { world async throws in
            world.identityToolkit.fail(with: .userDisabled())
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 403, "user_disabled")
        }
        // Identity Toolkit's own answer, through its failure table.
        let body = Array(#"{"error":{"code":400,"message":"USER_DISABLED","status":"INVALID_ARGUMENT"}}"#.utf8)
        guard case .fail(let problem, _) = IdentityToolkitClient.failures.verdict(.success(.init(status: 400, headers: [], body: body))) else {
            Issue.record("USER_DISABLED was taken for an answer")
            return
        }
        #expect(problem.code == .userDisabled)
        #expect(problem.status.code == 403)
    }

    @Test func aUserInStepIsRememberedForTheCacheWindow() async throws {
        let clock = ManualUnixClock()
        var options = Self.steps { $0.firebase.userCacheSeconds = 300 }
        options.clock = clock.clock
        try await RouterWorld.with(options) { world async throws in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            let afterFirst = world.admin.calls.count
            for _ in 0..<5 { #expect(try await world.exchange(token).status == 200) }
            #expect(world.admin.calls.count == afterFirst, "a repeated login inside the window made Admin calls")
            // A changed profile is synced at once.
            let renamed = world.validToken(nickname: "Ryan 2")
            #expect(try await world.exchange(renamed).status == 200)
            #expect(world.admin.user(Self.uid)?.displayName == "Ryan 2")
            let afterRename = world.admin.calls.count
            clock.advance(301)
            #expect(try await world.exchange(renamed).status == 200)
            #expect(world.admin.calls.count == afterRename + 1, "after the window the user is looked up again")
        }
    }

    @Test func aCacheOfZeroSecondsLooksUpEveryLogin() async throws {
        try await RouterWorld.with(Self.steps { $0.firebase.userCacheSeconds = 0 }) { world async throws in
            let token = world.validToken()
            for _ in 0..<3 { #expect(try await world.exchange(token).status == 200) }
            #expect(world.admin.calls.filter { $0 == .lookUp(.uid(Self.uid)) }.count == 3)
        }
    }

    @Test func offMakesNoAdminCallAndFetchesNoAccessToken() async throws {
        try await RouterWorld.with(Self.steps("off")) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200)
            #expect(world.admin.calls.isEmpty)
            #expect(world.googleTokens.fetches == 0)
        }
    }

    /// Every failure mode of Google's side, in both modes: best_effort logs a warning and goes on, required refuses.
    @Test(arguments: [
        ("token", Problem.firebaseAdminRejected("Google's token endpoint refused the service account's assertion (HTTP 400): invalid_grant.")),
        ("token", Problem.firebaseAdminUnavailable("Google's token endpoint answered HTTP 503.")),
        ("lookup", Problem.firebaseAdminRejected("The Admin API refused accounts:lookup (HTTP 403): PERMISSION_DENIED.")),
        ("lookup", Problem.firebaseAdminUnavailable("The Admin API answered accounts:lookup with HTTP 500.")),
        ("lookup", Problem.upstreamTimeout("The Admin API")),
        ("create", Problem.firebaseAdminRejected("The Admin API refused accounts (create) (HTTP 400): INVALID_PHOTO_URL.")),
        ("create", Problem.firebaseAdminUnavailable("The Admin API is unreachable: could not connect.")),
        ("update", Problem.firebaseAdminRejected("The Admin API refused accounts:update (HTTP 400): INVALID_DISPLAY_NAME.")),
    ] as [(String, Problem)])
    func googleFailures(where failing: String, problem: Problem) async throws {
        for mode in ["best_effort", "required"] {
            try await RouterWorld.with(Self.steps(mode)) { world async throws in
                if failing == "token" { world.googleTokens.fail(with: problem) } else { world.admin.fail(failing, with: problem) }
                if failing == "update" { world.admin.seed(FirebaseUserRecord(uid: Self.uid, displayName: "Old")) }
                let reply = try await world.exchange(world.validToken())
                if mode == "best_effort" {
                    #expect(reply.status == 200, "\(mode) \(failing): \(reply.text)")
                    let warning = world.logs.lines.first { $0.contains("user sync failed") }
                    #expect(warning?.contains(Self.uid) == true)
                    #expect(warning?.contains(problem.code.rawValue) == true)
                } else {
                    ErrorMappingTests.expectProblem(reply, problem.status.code, problem.code.rawValue)
                    #expect(world.identityToolkit.calls == 0)
                }
                for line in world.logs.lines {
                    #expect(!line.contains("ryan@example.com") && !line.contains("Ryan") && !line.contains("fake-access-token"))
                }
            }
        }
    }

    @Test func adminCallsCarryTheAccessTokenProjectAndTenant() async throws {
        var options = Self.steps()
        options.tenantID = "tenant-a"
        try await RouterWorld.with(options) { world async throws in
            #expect(try await world.exchange(world.validToken()).status == 200, "")
            let scopes = world.admin.scopes
            #expect(!scopes.isEmpty)
            #expect(scopes.allSatisfy {
                $0 == AdminScope(bearer: "fake-access-token-1", projectID: world.projectID, tenantID: "tenant-a")
            })
        }
    }

    @Test func metricsCountOutcomesWithoutUids() async throws {
        try await RouterWorld.with(Self.steps()) { world async throws in
            let token = world.validToken()
            #expect(try await world.exchange(token).status == 200)
            #expect(try await world.exchange(token).status == 200)
            let text = try await world.get("/metrics").text
            for expected in [
                #"kakao_bridge_user_sync_total{outcome="created"}"#, #"kakao_bridge_user_sync_total{outcome="cached"}"#,
                #"kakao_bridge_firebase_admin_calls_total{operation="lookup",outcome="not_found"}"#,
                #"kakao_bridge_firebase_admin_calls_total{operation="create",outcome="ok"}"#,
                #"kakao_bridge_access_token_fetches_total{outcome="ok"}"#,
            ] {
                #expect(text.contains(expected), "missing in /metrics: \(expected)")
            }
            #expect(!text.contains("kakao:"))
            #expect(!text.contains("ryan@example.com"))
        }
    }

    @Test func configurationKeysAreValidated() throws {
        let base = "kakao: {app_id: 1}\nfirebase: {service_account_file: /x.json}\n"
        let defaults = try ConfigLoader.parse(yaml: base, environment: [:])
        #expect(defaults.firebase.userSync == .bestEffort)
        #expect(defaults.firebase.userCacheSeconds == 300)
        #expect(defaults.hook.checkRevoked == false)
        let set = try ConfigLoader.parse(yaml: base, environment: [
            "BRIDGE_FIREBASE_USER_SYNC": "required", "BRIDGE_FIREBASE_USER_CACHE_SECONDS": "0", "BRIDGE_HOOK_CHECK_REVOKED": "true",
        ])
        #expect(set.firebase.userSync == .required)
        #expect(set.firebase.userCacheSeconds == 0)
        #expect(set.hook.checkRevoked)
        do {
            _ = try ConfigLoader.parse(yaml: base, environment: [
                "BRIDGE_FIREBASE_USER_SYNC": "always", "BRIDGE_FIREBASE_USER_CACHE_SECONDS": "3601",
            ])
            Issue.record("invalid values were accepted")
        } catch {
            // Every problem at once.
            #expect(error.description.contains("firebase.user_sync"))
            #expect(error.description.contains("firebase.user_cache_seconds"))
        }
    }
}
