import BridgeJSON
import BridgeSupport
import Foundation
import OpenSSLCrypto
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import Upstreams
import EndToEndSupport
import BridgeTestSupport
import UpstreamFakes

/// Linking by verified email (docs/api.md#linking-to-an-existing-firebase-account) at the router's depth.
@Suite("Linking by verified email")
struct LinkingTests {
    static let kakaoUID = "kakao:1234567890"
    static let email = "ryan@example.com"

    static func options(linking: Bool = true, mode: String = "best_effort") -> RouterWorld.Options {
        var options = RouterWorld.Options()
        options.firebase = true
        options.hook = true
        options.configure = { config in
            config.linking.byVerifiedEmail = linking
            config.firebase.userSync = .init(rawValue: mode)!
        }
        return options
    }

    static func existing(claims: String? = nil, emailVerified: Bool = true, disabled: Bool = false) -> FirebaseUserRecord {
        FirebaseUserRecord(
            uid: "email-user", displayName: "Ryan Lee", email: email, emailVerified: emailVerified, disabled: disabled,
            customAttributes: claims
        )
    }

    @Test func offByDefaultAKakaoUserIsCreatedBesideTheEmailsAccount() async throws {
        try await RouterWorld.with(Self.options(linking: false)) { world async throws in
            world.admin.seed(Self.existing())
            let reply = try await world.exchange(world.validToken())
            #expect(reply.json?["uid"] == .string(Self.kakaoUID))
            #expect(world.admin.user(Self.kakaoUID)?.email == nil, "created without the email another user holds")
            #expect(world.admin.user("email-user")?.customAttributes == nil)
        }
    }

    @Test func aFirstLoginLinksToTheVerifiedEmailsAccount() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(Self.existing())
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string("email-user"))
            #expect(reply.json?["firebase"]?["is_new_user"] == .bool(false))
            // The custom token is minted for the linked uid, and Identity Toolkit signed that user in.
            let customToken = try #require(reply.json?["custom_token"]?.stringValue)
            let payload = try #require(Self.payload(of: customToken))
            #expect(payload["uid"] == .string("email-user"))
            #expect(payload["claims"]?["kakao_id"] == .int(1_234_567_890))

            let linked = try #require(world.admin.user("email-user"))
            #expect(linked.customAttributes == #"{"kakao_id":1234567890}"#)
            #expect(linked.displayName == "Ryan", "Kakao's nickname replaces the name, as for every synced user")
            let record = try #require(world.admin.user(Self.kakaoUID))
            #expect(record.disabled)
            #expect(record.customAttributes == #"{"linked_uid":"email-user"}"#)
            #expect(record.email == nil && record.displayName == nil && record.photoURL == nil)
        }
    }

    @Test func existingCustomClaimsAreMergedNeverDropped() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(Self.existing(claims: #"{"role":"admin","plan":{"tier":2}}"#))
            #expect(try await world.exchange(world.validToken()).json?["uid"] == .string("email-user"))
            let claims = try #require(world.admin.user("email-user")?.customAttributes)
            #expect(JSONValue.parse(Array(claims.utf8)) == ["role": "admin", "plan": ["tier": 2], "kakao_id": 1_234_567_890])
        }
    }

    @Test func laterLoginsFollowTheLinkRecordWithoutAnEmailLookup() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(Self.existing())
            _ = try await world.exchange(world.validToken())
            world.admin.resetCalls()
            // Even with another (or no) email at Kakao now, the link holds.
            let reply = try await world.exchange(world.validToken(email: "new@example.com"))
            #expect(reply.json?["uid"] == .string("email-user"))
            #expect(!world.admin.calls.contains { if case .lookUp(.email) = $0 { true } else { false } })
        }
    }

    @Test func anAccountLinkedToAnotherKakaoUserIsAConflict() async throws {
        for mode in ["best_effort", "required"] {
            try await RouterWorld.with(Self.options(mode: mode)) { world async throws in
                world.admin.seed(Self.existing(claims: #"{"kakao_id":99}"#))
                let reply = try await world.exchange(world.validToken())
                #expect(reply.status == 409, "\(mode)")
                #expect(reply.code == "account_conflict")
                #expect(world.admin.user(Self.kakaoUID) == nil)
                #expect(world.admin.user("email-user")?.customAttributes == #"{"kakao_id":99}"#)
            }
        }
    }

    @Test func anAccountAlreadyLinkedToThisUserGetsItsMissingLinkRecord() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(Self.existing(claims: #"{"kakao_id":"1234567890"}"#))
            let reply = try await world.exchange(world.validToken())
            #expect(reply.json?["uid"] == .string("email-user"))
            #expect(world.admin.user(Self.kakaoUID)?.customAttributes == #"{"linked_uid":"email-user"}"#)
        }
    }

    @Test func unverifiedEmailsNeverLink() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            // Firebase's copy is unverified: whoever typed the address may not own it.
            world.admin.seed(Self.existing(emailVerified: false))
            let reply = try await world.exchange(world.validToken())
            #expect(reply.json?["uid"] == .string(Self.kakaoUID))
            #expect(world.admin.user("email-user")?.customAttributes == nil)
        }
        try await RouterWorld.with(Self.options()) { world async throws in
            // Kakao's copy is unverified: the email is not even looked up.
            world.admin.seed(Self.existing())
            let reply = try await world.exchange(world.validToken(emailVerified: false))
            #expect(reply.json?["uid"] == .string(Self.kakaoUID))
            #expect(!world.admin.calls.contains { if case .lookUp(.email) = $0 { true } else { false } })
        }
    }

    @Test func aLinkRecordWhoseAccountIsGoneIsDeletedAndTheLoginGoesOnAsNew() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(FirebaseUserRecord(uid: Self.kakaoUID, disabled: true, customAttributes: #"{"linked_uid":"gone"}"#))
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string(Self.kakaoUID))
            let user = try #require(world.admin.user(Self.kakaoUID))
            #expect(user.disabled == false)
            #expect(user.customAttributes == nil)
            #expect(user.displayName == "Ryan")
        }
    }

    @Test func aDisabledLinkedAccountIsRefused() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.seed(Self.existing(disabled: true))
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 403)
            #expect(reply.code == "user_disabled")
        }
    }

    @Test func whenGoogleFailsBeforeTheUIDIsKnownTheLoginFailsEvenInBestEffort() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.admin.fail("lookup", with: .firebaseAdminUnavailable("down"))
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 502)
            #expect(reply.code == "firebase_admin_unavailable")
        }
    }

    @Test func theHookAcceptsALinkedUsersIDTokenByItsKakaoIDClaim() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let kakao = world.validToken()
            func hook(_ idToken: String) async throws -> Reply {
                try await world.post(
                    "/v1/login-complete", headers: [("Authorization", "Bearer " + RouterWorld.hookSecret)],
                    body: #"{"kakao_token":"\#(kakao)","token":"\#(idToken)"}"#
                )
            }
            let linked = try await hook(try world.idToken(uid: "email-user") { $0["kakao_id"] = Int64(1_234_567_890) })
            #expect(linked.status == 200, "\(linked.text)")
            #expect(linked.json?["uid"] == .string("email-user"))
            #expect(linked.json?["kakao"]?["id"] == .int(1_234_567_890))
            let asText = try await hook(try world.idToken(uid: "email-user") { $0["kakao_id"] = "1234567890" })
            #expect(asText.status == 200)
            let other = try await hook(try world.idToken(uid: "email-user") { $0["kakao_id"] = Int64(99) })
            #expect(other.code == "token_mismatch")
            let none = try await hook(try world.idToken(uid: "email-user"))
            #expect(none.code == "token_mismatch")
        }
    }

    static func payload(of jwt: String) -> JSONValue? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[1])) else { return nil }
        return JSONValue.parse(bytes)
    }
}
