import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import HTTPTypes
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// The Admin API's credential (docs/api.md#credentials): the JWT-bearer assertion, one fetch for many
/// logins, kept until 5 minutes before expiry, one fetch at a time, failures not kept.
@Suite("Access tokens")
struct AccessTokenTests {
    static func options(_ clock: ManualUnixClock? = nil) -> RouterWorld.Options {
        var options = RouterWorld.Options()
        options.firebase = true
        if let clock { options.clock = clock.clock }
        return options
    }

    @Test func manyLoginsFetchOneAccessToken() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            for id in Int64(1)...20 {
                #expect(try await world.exchange(world.validToken(id: id, email: "user\(id)@example.com")).status == 200)
            }
            #expect(world.googleTokens.fetches == 1)
            // A lookup and a create each: twenty users, forty Admin calls, one access token.
            #expect(world.admin.calls.count == 40)
        }
    }

    @Test func concurrentLoginsWaitForOneFetch() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.googleTokens.delay(.milliseconds(200))
            let tokens = (Int64(1)...16).map { world.validToken(id: $0) }
            try await withThrowingTaskGroup(of: Int.self) { group in
                for token in tokens { group.addTask { try await world.exchange(token).status } }
                for try await status in group { #expect(status == 200) }
            }
            #expect(world.googleTokens.fetches == 1)
        }
    }

    @Test func theTokenIsRefetchedFiveMinutesBeforeItExpires() async throws {
        let clock = ManualUnixClock()
        try await RouterWorld.with(Self.options(clock)) { world async throws in
            world.googleTokens.answer(expiresIn: 3600)
            #expect(try await world.exchange(world.validToken(id: 1)).status == 200)
            clock.advance(3600 - 301)
            #expect(try await world.exchange(world.validToken(id: 2)).status == 200)
            #expect(world.googleTokens.fetches == 1)
            clock.advance(2)
            #expect(try await world.exchange(world.validToken(id: 3)).status == 200)
            #expect(world.googleTokens.fetches == 2)
            #expect(world.admin.scopes.last?.bearer == "fake-access-token-2")
        }
    }

    @Test func aFailedFetchIsNotKept() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.googleTokens.fail(with: .firebaseAdminUnavailable("Google's token endpoint answered HTTP 503."))
            #expect(try await world.exchange(world.validToken(id: 1)).status == 200)
            #expect(world.admin.calls.isEmpty)
            world.googleTokens.fail(with: nil)
            #expect(try await world.exchange(world.validToken(id: 2)).status == 200)
            #expect(world.googleTokens.fetches == 2)
            #expect(world.admin.calls.count == 2)
        }
    }

    /// The assertion's header and claims, as Google's auth libraries write them.
    @Test func theAssertionCarriesGooglesClaims() throws {
        let account = try ServiceAccount.parse(Data(RouterWorld.account.account.json().utf8), source: "test")
        let assertion = try JWTBearerAssertion.make(for: account, now: 1_700_000_000)
        let parts = try #require(JWTEncoding.split(assertion))
        let header = try #require(JSONValue.parse(parts.header))
        let payload = try #require(JSONValue.parse(parts.payload))
        #expect(header == .object(["alg": "RS256", "typ": "JWT", "kid": .string(account.privateKeyID)]))
        #expect(payload == .object([
            "iss": .string(account.clientEmail),
            "scope": "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/identitytoolkit",
            "aud": "https://oauth2.googleapis.com/token",
            "iat": .int(1_700_000_000),
            "exp": .int(1_700_003_600),
        ]))
        #expect(account.privateKey.publicKey.verifyRS256(signature: parts.signature, message: parts.signingInput))
        #expect(GoogleTokenClient.form(assertion: "a.b.c").map { "\($0.0)=\($0.1)" }
            == ["grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion=a.b.c"])
        #expect(FormCodec.encode(GoogleTokenClient.form(assertion: "a.b.c"))
            == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b.c")
    }

    @Test func theServiceAccountNamesTheTokenEndpoint() throws {
        var account = RouterWorld.account.account
        #expect(try ServiceAccount.parse(Data(account.json().utf8), source: "t").tokenURI == "https://oauth2.googleapis.com/token")
        account.tokenURI = "http://127.0.0.1:9/token"
        #expect(try ServiceAccount.parse(Data(account.json().utf8), source: "t").tokenURI == "http://127.0.0.1:9/token")
        // A file without token_uri gets Google's.
        var file = try #require(JSONValue.parse(Array(account.json().utf8))?.objectValue)
        file["token_uri"] = nil
        #expect(try ServiceAccount.parse(Data(JSONValue.object(file).serialized), source: "t").tokenURI == ServiceAccount.defaultTokenURI)
    }

    /// The token endpoint's refusals, through its failure table: Google's OAuth code in `detail`.
    @Test func tokenEndpointFailures() throws {
        let invalidGrant = Array(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#.utf8)
        guard case .fail(let refused, let retryable) = GoogleTokenClient.failures.verdict(.success(.init(status: 400, headers: [], body: invalidGrant))) else {
            Issue.record("a refusal was taken for an answer")
            return
        }
        #expect(refused.code == .firebaseAdminRejected)
        #expect(refused.status.code == 502)
        #expect(refused.detail.contains("invalid_grant"))
        #expect(!retryable)
        guard case .fail(let outage, true) = GoogleTokenClient.failures.verdict(.success(.init(status: 503, headers: [], body: []))) else {
            Issue.record("a 503 was not a retryable failure")
            return
        }
        #expect(outage.code == .firebaseAdminUnavailable)
        guard case .fail(let unreachable, _) = GoogleTokenClient.failures.verdict(.failure(.unreachable("could not connect"))) else {
            Issue.record("a connection failure was taken for an answer")
            return
        }
        #expect(unreachable.code == .firebaseAdminUnavailable)
    }

    /// The Admin API's refusals: the code from `message` for 400s, from `status` for 401/403, and the conflicts the
    /// user sync resolves itself handed back to it.
    @Test func adminAPIFailures() throws {
        func verdict(_ failures: FailureMap, _ status: Int, _ body: String) -> FailureMap.Verdict {
            failures.verdict(.success(.init(status: status, headers: [], body: Array(body.utf8))))
        }
        let permission = #"{"error":{"code":403,"message":"Caller does not have required permission to use project x.","status":"PERMISSION_DENIED"}}"#
        guard case .fail(let denied, _) = verdict(AdminAPIClient.lookupFailures, 403, permission) else {
            Issue.record("403 was taken for an answer")
            return
        }
        #expect(denied.code == .firebaseAdminRejected)
        #expect(denied.detail.contains("PERMISSION_DENIED"))
        #expect(!denied.detail.contains("project x"))
        let notFound = #"{"error":{"code":400,"message":"CONFIGURATION_NOT_FOUND","status":"INVALID_ARGUMENT"}}"#
        guard case .fail(let rejected, _) = verdict(AdminAPIClient.lookupFailures, 400, notFound) else {
            Issue.record("400 was taken for an answer")
            return
        }
        #expect(rejected.detail.contains("CONFIGURATION_NOT_FOUND (INVALID_ARGUMENT)"))
        let exists = #"{"error":{"code":400,"message":"EMAIL_EXISTS","status":"INVALID_ARGUMENT"}}"#
        guard case .answer(let handedBack) = verdict(AdminAPIClient.createFailures, 400, exists) else {
            Issue.record("EMAIL_EXISTS was not handed back to the client")
            return
        }
        #expect(try AdminAPIClient.writeOutcome(handedBack, AdminAPIClient.createFailures) == .emailExists)
        let duplicate = #"{"error":{"code":400,"message":"DUPLICATE_LOCAL_ID : uid exists","status":"INVALID_ARGUMENT"}}"#
        guard case .answer(let duplicateAnswer) = verdict(AdminAPIClient.createFailures, 400, duplicate) else {
            Issue.record("DUPLICATE_LOCAL_ID was not handed back to the client")
            return
        }
        #expect(try AdminAPIClient.writeOutcome(duplicateAnswer, AdminAPIClient.createFailures) == .uidExists)
        guard case .fail(let outage, true) = verdict(AdminAPIClient.updateFailures, 500, "{}") else {
            Issue.record("500 was not a retryable failure")
            return
        }
        #expect(outage.code == .firebaseAdminUnavailable)
        guard case .fail(let disabled, _) = verdict(AdminAPIClient.updateFailures, 400, #"{"error":{"code":400,"message":"USER_DISABLED"}}"#) else {
            Issue.record("USER_DISABLED was taken for an answer")
            return
        }
        #expect(disabled.code == .userDisabled)
    }

    @Test func theUserRecordAndRequestsAreGooglesShape() throws {
        let record = try FirebaseUserRecord(jsonBytes: Array(#"""
            {"localId":"kakao:1","displayName":"A","photoUrl":"https://p","email":"a@b.c","emailVerified":true,
             "disabled":false,"validSince":"1700000000","customAttributes":"{\"role\":\"x\"}","createdAt":"1"}
            """#.utf8))
        #expect(record == FirebaseUserRecord(
            uid: "kakao:1", displayName: "A", photoURL: "https://p", email: "a@b.c", emailVerified: true, validSince: 1_700_000_000,
            customAttributes: #"{"role":"x"}"#
        ))
        var update = FirebaseUserUpdate(uid: "kakao:1")
        update.displayName = "B"
        update.disabled = true
        update.validSince = 1_700_000_001
        update.deleteAttributes = [.photoURL]
        #expect(JSONValue.parse(update.jsonBytes) == .object([
            "localId": "kakao:1", "displayName": "B", "disableUser": true, "validSince": .int(1_700_000_001),
            "deleteAttribute": .array(["PHOTO_URL"]),
        ]))
        #expect(JSONValue.parse(NewFirebaseUser(uid: "u", displayName: "N").jsonBytes) == .object(["localId": "u", "displayName": "N"]))
        #expect(JSONValue.parse(AdminAPIClient.LookupRequest(key: .uid("u")).jsonBytes) == .object(["localId": .array(["u"])]))
        #expect(JSONValue.parse(AdminAPIClient.LookupRequest(key: .email("e@x")).jsonBytes) == .object(["email": .array(["e@x"])]))
    }
}
