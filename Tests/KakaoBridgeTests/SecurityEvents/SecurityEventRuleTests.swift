import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import OpenSSLCrypto
import StandIns
import StateStore
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// Every verification rule of a Kakao security event token with its RFC 8935 `err`
/// (docs/api.md#kakaos-security-events), at the router's depth with Kakao's keys from the shared test key set. The
/// table's actions end to end are `SecurityEventTableTests`.
@Suite("Security events: verification")
struct SecurityEventRuleTests {
    static let audience = "test-rest-api-key"
    static let kakaoID: Int64 = 1_234_567_890
    static let type = "https://schemas.openid.net/secevent/risc/event-type/sessions-revoked"

    static func options(_ change: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in }) -> RouterWorld.Options {
        var options = RouterWorld.Options()
        options.configure = { config in
            config.kakao.events.audiences = [audience]
            change(&config)
        }
        return options
    }

    static func payload(_ world: RouterWorld, _ change: (inout [String: any Sendable]) -> Void = { _ in }) -> [String: any Sendable] {
        var payload = KakaoStandIn.securityEventPayload(
            type: type, userID: kakaoID, audience: audience, jti: UUID().uuidString, issuedAt: world.clock.now() - 5
        )
        change(&payload)
        return payload
    }

    static func sign(
        _ world: RouterWorld, header: [String: any Sendable]? = nil, signing: IDTokenSigning = .current,
        _ change: (inout [String: any Sendable]) -> Void = { _ in }
    ) throws -> String {
        let header = try header ?? ["alg": "RS256", "typ": "secevent+jwt", "kid": world.kakaoKeys.keys.currentKID]
        return try world.kakaoKeys.keys.signIDToken(header: header, payload: payload(world, change), signing: signing)
    }

    static func send(_ world: RouterWorld, _ body: String, contentType: String = "application/secevent+jwt") async throws -> Reply {
        try await world.post("/v1/kakao/events", headers: [("Content-Type", contentType)], body: body)
    }

    /// 400, `application/json`, exactly `err` and `description`, and nothing recorded.
    static func expectRefused(_ reply: Reply, _ err: String, _ world: RouterWorld, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(reply.status == 400, "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
        #expect(reply.json?["err"] == .string(err), "\(reply.text)", sourceLocation: sourceLocation)
        #expect(reply.json?.objectValue.map { Set($0.keys) } == ["err", "description"], sourceLocation: sourceLocation)
        #expect(try await world.shared.store.queueCounts() == AccountEventCounts(pending: 0, failed: 0), sourceLocation: sourceLocation)
    }

    // MARK: On, off, methods

    @Test func offIs404AndOnlyPostIsAllowed() async throws {
        try await RouterWorld.with(RouterWorld.Options()) { world async throws in
            let reply = try await Self.send(world, "x.y.z")
            #expect(reply.status == 404)
            #expect(reply.code == "not_found")
        }
        try await RouterWorld.with(Self.options()) { world async throws in
            let get = try await world.get("/v1/kakao/events")
            #expect(get.status == 405)
            #expect(get.header("Allow") == "POST")
        }
    }

    @Test func aGoodSETIs202WithEitherTypSpellingAndAContentTypeParameter() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let kid = try world.kakaoKeys.keys.currentKID
            #expect(try await Self.send(world, try Self.sign(world)).status == 202)
            let long = try Self.sign(world, header: ["alg": "RS256", "typ": "application/secevent+jwt", "kid": kid])
            #expect(try await Self.send(world, long).status == 202)
            let reply = try await Self.send(world, try Self.sign(world), contentType: "Application/SecEvent+JWT; charset=utf-8")
            #expect(reply.status == 202, "\(reply.text)")
            // A final newline after the token is not part of it.
            #expect(try await Self.send(world, try Self.sign(world) + "\n").status == 202)
        }
    }

    // MARK: invalid_request

    @Test func theWrongContentTypeOrNotAJWTIsInvalidRequest() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world), contentType: "application/jwt"), "invalid_request", world)
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world), contentType: "application/json"), "invalid_request", world)
            for body in ["", "not a jwt", "a.b", "a.b.c.d", "!!!.###.$$$"] {
                try await Self.expectRefused(try await Self.send(world, body), "invalid_request", world)
            }
            let notJSON = Base64URL.encode(Array("not json".utf8))
            try await Self.expectRefused(try await Self.send(world, "\(notJSON).\(notJSON).\(notJSON)"), "invalid_request", world)
        }
    }

    @Test func missingOrMistypedClaimsAreInvalidRequest() async throws {
        let changes: [(String, @Sendable (inout [String: any Sendable]) -> Void)] = [
            ("no iat", { $0["iat"] = nil }),
            ("iat a string", { $0["iat"] = "1700000000" }),
            ("no jti", { $0["jti"] = nil }),
            ("empty jti", { $0["jti"] = "" }),
            ("jti a number", { $0["jti"] = 42 }),
            ("jti too long", { $0["jti"] = String(repeating: "j", count: 257) }),
            ("no events", { $0["events"] = nil }),
            ("events empty", { $0["events"] = [String: any Sendable]() }),
            ("events an array", { $0["events"] = [Self.type] }),
            ("event not an object", { $0["events"] = [Self.type: "yes"] as [String: any Sendable] }),
            ("no user anywhere", { $0["events"] = [Self.type: [String: any Sendable]()] as [String: any Sendable] }),
            ("sub not a Kakao id", { $0["events"] = [Self.type: ["subject": ["subject_type": "iss-sub", "sub": "abc"] as [String: any Sendable]] as [String: any Sendable]] as [String: any Sendable] }),
            ("sub zero", { $0["events"] = [Self.type: ["subject": ["sub": "0"] as [String: any Sendable]] as [String: any Sendable]] as [String: any Sendable] }),
            ("subject of another issuer", { $0["events"] = [Self.type: ["subject": ["iss": "https://evil.example", "sub": "42"] as [String: any Sendable]] as [String: any Sendable]] as [String: any Sendable] }),
        ]
        try await RouterWorld.with(Self.options()) { world async throws in
            for (name, change) in changes {
                let reply = try await Self.send(world, try Self.sign(world, change))
                #expect(reply.json?["err"] == "invalid_request", "\(name): \(reply.text)")
                #expect(reply.status == 400, "\(name)")
            }
        }
    }

    @Test func theSETsOwnSubNamesTheUserWhenTheEventHasNoSubject() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let set = try Self.sign(world) { payload in
                payload["sub"] = "42"
                payload["events"] = [Self.type: [String: any Sendable]()] as [String: any Sendable]
            }
            #expect(try await Self.send(world, set).status == 202)
            #expect(world.unlinkedUsers.unlinkedAt(42) != nil, "sessions-revoked marks user 42")
        }
    }

    @Test func anIatInTheFutureOrOlderThanTheMaxAgeIsInvalidRequest() async throws {
        let clock = ManualUnixClock()
        var options = Self.options { $0.kakao.events.maxAgeSeconds = 600 }
        options.clock = clock.clock
        try await RouterWorld.with(options) { world async throws in
            let now = clock.now
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world) { $0["iat"] = now + 60 }), "invalid_request", world)
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world) { $0["iat"] = now - 601 }), "invalid_request", world)
            let fresh = try await Self.send(world, try Self.sign(world) { $0["iat"] = now - 599 })
            #expect(fresh.status == 202, "\(fresh.text)")
        }
    }

    // MARK: invalid_key

    @Test func anUnknownKidABadSignatureOrTheWrongAlgOrTypIsInvalidKey() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let kid = try world.kakaoKeys.keys.currentKID
            let bodies: [(String, String)] = [
                ("unknown kid", try Self.sign(world, header: ["alg": "RS256", "typ": "secevent+jwt", "kid": "no-such-key"])),
                ("no kid", try Self.sign(world, header: ["alg": "RS256", "typ": "secevent+jwt"])),
                ("corrupted signature", try Self.sign(world, signing: .corruptedSignature)),
                ("a key Kakao never published", try Self.sign(world, signing: .unpublishedKey)),
                ("alg none", try Self.sign(world, header: ["alg": "none", "typ": "secevent+jwt", "kid": kid], signing: .none)),
                ("alg HS256 keyed with the public key", try Self.sign(world, header: ["alg": "HS256", "typ": "secevent+jwt", "kid": kid], signing: .hs256WithCertificate)),
                ("no alg", try Self.sign(world, header: ["typ": "secevent+jwt", "kid": kid])),
                ("no typ", try Self.sign(world, header: ["alg": "RS256", "kid": kid])),
                ("typ JWT (an ID token is not a SET)", try Self.sign(world, header: ["alg": "RS256", "typ": "JWT", "kid": kid])),
                ("crit", try Self.sign(world, header: ["alg": "RS256", "typ": "secevent+jwt", "kid": kid, "crit": ["exp"]])),
            ]
            for (name, body) in bodies {
                let reply = try await Self.send(world, body)
                #expect(reply.status == 400, "\(name)")
                #expect(reply.json?["err"] == "invalid_key", "\(name): \(reply.text)")
            }
            // A Kakao ID token is signed with the same key, but it is not a SET.
            let idToken = try world.kakaoIDToken(nonce: nil)
            try await Self.expectRefused(try await Self.send(world, idToken), "invalid_key", world)
        }
    }

    // MARK: invalid_issuer, invalid_audience

    @Test func theWrongOrMissingIssuerIsInvalidIssuer() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world) { $0["iss"] = "https://kauth.kakao.com.evil" }), "invalid_issuer", world)
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world) { $0["iss"] = nil }), "invalid_issuer", world)
        }
    }

    @Test func theWrongOrMissingAudienceIsInvalidAudienceAndAnArrayWithOursIsAccepted() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world) { $0["aud"] = "another-app" }), "invalid_audience", world)
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world) { $0["aud"] = nil }), "invalid_audience", world)
            try await Self.expectRefused(try await Self.send(world, try Self.sign(world) { $0["aud"] = ["a", "b"] }), "invalid_audience", world)
            let ours = try await Self.send(world, try Self.sign(world) { $0["aud"] = ["a", Self.audience] })
            #expect(ours.status == 202, "\(ours.text)")
        }
    }

    // MARK: Kakao's keys, the store

    @Test func kakaosKeysUnreachableIs503SoKakaoSendsItAgain() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            world.kakaoKeys.setFailing(true)
            let reply = try await Self.send(world, try Self.sign(world))
            #expect(reply.status == 503 || reply.status == 502, "\(reply.text)")
            #expect(reply.code == "kakao_unavailable")
        }
    }

    @Test func aReplayIs202AndQueuesNothingTwice() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let set = try Self.sign(world)
            #expect(try await Self.send(world, set).status == 202)
            #expect(try await Self.send(world, set).status == 202)
            let events = try await world.shared.store.events(state: .done) + world.shared.store.events(state: .pending)
            #expect(events.count == 1)
            #expect(events.first?.eventType == Self.type)
        }
    }

    // MARK: Logs

    @Test func nothingOfTheSETReachesALogLine() async throws {
        try await RouterWorld.with(Self.options()) { world async throws in
            let good = try Self.sign(world) { $0["jti"] = "jti-in-logs-is-fine" }
            let bad = try Self.sign(world) { $0["aud"] = "secret-looking-aud" }
            _ = try await Self.send(world, good)
            _ = try await Self.send(world, bad)
            _ = try await Self.send(world, "garbage.\(Base64URL.encode(Array("ryan@example.com".utf8))).x")
            let logs = world.logs.lines.joined(separator: "\n")
            for secret in [good, bad, String(good.split(separator: ".")[1]), String(bad.split(separator: ".")[2]), "secret-looking-aud", "ryan@example.com"] {
                #expect(!logs.contains(secret), "\(secret.prefix(12))… reached a log line")
            }
            #expect(logs.contains("security event refused"))
        }
    }
}
