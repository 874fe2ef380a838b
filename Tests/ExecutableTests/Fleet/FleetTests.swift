import BridgeJSON
import BridgeSupport
import Foundation
import StandIns
import Testing
import EndToEndSupport

/// Scaling out (docs/operations.md#scaling-out, #shared-state): nonces, unlink marks, queued events and linking. Two
/// real `kakao-bridge serve` processes on different ports, configured identically against one test world's stand-ins
/// and one state store, behave as one service. PostgreSQL is a throwaway server per test process
/// (scripts/postgres-test-server), a fresh database per test; SQLite is one file both processes open.
@Suite("A fleet on one store", .serialized)
struct FleetTests {
    static let kakaoID: Int64 = 1_234_567_890
    static let uid = "kakao:1234567890"

    /// The measured times, on standard error (the report quotes them).
    static func report(_ text: String) {
        FileHandle.standardError.write(Data("fleet: \(text)\n".utf8))
    }

    // MARK: 1. Nonces (each used once, fleet-wide)

    @Test("A nonce used at one instance is refused at the other", arguments: [FleetStore.postgres, .sqlite])
    func aNonceUsedAtOneInstanceIsRefusedAtTheOther(store: FleetStore) async throws {
        var settings = FleetSettings()
        settings.oidc = true
        try await Fleet.with(store, settings) { fleet in
            let (a, b) = try await fleet.startTwo()
            // Issued by A, used at A, replayed at B.
            let token = try fleet.idToken(nonce: try await a.nonce())
            let first = try await a.exchange(token)
            #expect(first.status == 200, "\(first.text)")
            #expect(first.json?["uid"]?.stringValue == Self.uid)
            let replay = try await b.exchange(token)
            #expect(replay.status == 401, "\(replay.text)")
            #expect(replay.code == "invalid_kakao_id_token")
            #expect(replay.json?["detail"]?.stringValue?.contains("already used") == true, "\(replay.text)")

            // And the other way round: a nonce of A's used first at B (the secret is shared) is refused back at A.
            let other = try fleet.idToken(nonce: try await a.nonce())
            let atB = try await b.exchange(other)
            #expect(atB.status == 200, "\(atB.text)")
            let atA = try await a.exchange(other)
            #expect(atA.status == 401, "\(atA.text)")
            #expect(atA.code == "invalid_kakao_id_token")
            #expect(fleet.world.kakao.apiCalls == 0)
        }
    }

    // MARK: 2. Unlink marks (seen by every instance within 1 s)

    @Test("An unlink at one instance ends the other's cached access token and older ID token within a second",
          arguments: [FleetStore.postgres, .sqlite])
    func anUnlinkAtOneInstanceReachesTheOtherWithinASecond(store: FleetStore) async throws {
        var settings = FleetSettings()
        settings.oidc = true
        // The ID token is used more than once here, before and after the unlink: its nonce is not the subject.
        settings.requireNonce = false
        settings.unlink = true
        settings.cacheSeconds = 300
        try await Fleet.with(store, settings) { fleet in
            let (a, b) = try await fleet.startTwo()
            let world = fleet.world
            let token = world.validToken()
            let idToken = try fleet.idToken(nonce: nil)
            #expect(try await b.exchange(token).status == 200)
            let verified = world.kakao.tokenInfoCalls
            // Cached at B: the second login asks Kakao nothing.
            let cached = try await b.exchange(token)
            #expect(cached.status == 200, "\(cached.text)")
            #expect(world.kakao.tokenInfoCalls == verified, "B's second login was not answered from its cache")
            #expect(try await b.exchange(idToken).status == 200)

            // Kakao unlinks the person (their access tokens stop working at Kakao), then calls the webhook at A.
            world.kakao.unlink(userID: Self.kakaoID)
            let webhook = try await a.unlinkWebhook(userID: Self.kakaoID)
            #expect(webhook.status == 200, "\(webhook.text)")
            let answered = ContinuousClock.now

            // Until the mark reaches B, B answers 200 from its cache; then it drops the entry and asks Kakao, which refuses.
            var last: Reply?
            let took = try await fleetEventually(within: .seconds(5)) {
                let reply = try await b.exchange(token)
                last = reply
                return reply.status != 200
            }
            let elapsed = ContinuousClock.now - answered
            Self.report("\(store.rawValue): the unlink mark reached B after \(took.map { "\($0)" } ?? "never") (\(elapsed) since the webhook's answer)")
            let propagation = try #require(took, "B still answered 200 from its cache 5 s after the webhook")
            #expect(propagation < .milliseconds(1500), "the mark took \(propagation)")
            #expect(last?.status == 401, "\(last?.text ?? "")")
            #expect(last?.code == "invalid_kakao_token")
            #expect(world.kakao.tokenInfoCalls > verified, "B refused without asking Kakao: not its cache that was dropped")

            // The ID token issued before the webhook is refused at B too.
            let older = try await b.exchange(idToken)
            #expect(older.status == 401, "\(older.text)")
            #expect(older.code == "invalid_kakao_id_token")
            #expect(older.json?["detail"]?.stringValue?.contains("unlinked") == true, "\(older.text)")
        }
    }

    @Test("A security event at one instance drops the other's cached verification; the same SET at the other changes nothing",
          arguments: [FleetStore.postgres, .sqlite])
    func aSecurityEventAtOneInstanceReachesTheOtherAndItsReplayIsRefused(store: FleetStore) async throws {
        var settings = FleetSettings()
        settings.securityEvents = true
        settings.cacheSeconds = 300
        try await Fleet.with(store, settings) { fleet in
            let (a, b) = try await fleet.startTwo()
            let world = fleet.world
            let token = world.validToken()
            #expect(try await b.exchange(token).status == 200)
            #expect(try await b.exchange(token).status == 200)
            let verified = world.kakao.tokenInfoCalls
            let set = try world.kakao.securityEventToken(payload: KakaoStandIn.securityEventPayload(
                type: KakaoSecurityEventType.sessionsRevoked.rawValue, userID: Self.kakaoID, audience: SecurityEventsOn.audience
            ))
            let first = try await a.postSecurityEvent(set)
            #expect(first.status == 202, "\(first.text)")
            let took = try await fleetEventually(within: .seconds(5)) {
                _ = try await b.exchange(token)
                return world.kakao.tokenInfoCalls > verified
            }
            Self.report("\(store.rawValue): the security event's mark reached B after \(took.map { "\($0)" } ?? "never")")
            #expect(took != nil, "B kept answering from its cache")
            let updates = world.admin.calls(.update)
            let replay = try await b.postSecurityEvent(set)
            #expect(replay.status == 202, "\(replay.text)")
            try await Task.sleep(for: .milliseconds(300))
            #expect(world.admin.calls(.update) == updates, "the replay at B changed nothing in Firebase")
            #expect(world.backend.eventNotices.count == 1)
        }
    }

    // MARK: 3. An instance killed mid-event (taken over after the lease)

    @Test("An event whose instance was killed mid-step is finished by the other after the lease, the backend told once")
    func anEventOfAKilledInstanceIsFinishedByTheOther() async throws {
        let backend = try await SwitchableUnlinkBackend.start()
        var settings = FleetSettings()
        settings.unlink = true
        settings.unlinkURL = backend.url
        settings.unlinkLeaseSeconds = 2
        settings.unlinkDeadlineMS = 500
        do {
            try await Fleet.with(.postgres, settings) { fleet in
                let (a, b) = try await fleet.startTwo()
                let world = fleet.world
                #expect(try await a.exchange(world.validToken()).status == 200)
                let before = try #require(world.users.user(Self.uid)).validSince
                try await Task.sleep(for: .milliseconds(1100))  // validSince has one-second steps

                // A records the event, revokes the user, and hangs in the backend's call past its answer to Kakao.
                let webhook = try await a.unlinkWebhook(userID: Self.kakaoID)
                #expect(webhook.status == 200, "\(webhook.text)")
                #expect(try await fleetEventually(within: .seconds(10)) { backend.heldRequests >= 1 } != nil, "A never called the backend")
                let revoked = try #require(world.users.user(Self.uid)).validSince
                #expect(revoked > before, "A's step 2 did not revoke the user")
                let updates = world.admin.calls(.update)
                let pending = try fleet.unlinks()
                #expect(pending.count == 1, "\(pending)")
                #expect(pending.first?["state"]?.stringValue == "pending")
                #expect(pending.first?["firebase"]?["state"]?.stringValue == "done")
                #expect(pending.first?["backend"]?["state"]?.stringValue == "pending")

                // While A lives its step is never taken over, although it runs past the lease (renewed).
                try await Task.sleep(for: .seconds(3))
                #expect(backend.heldRequests == 1, "B took over a step A was still running")

                // A dies holding the lease; the backend recovers.
                try await a.kill()
                let killed = ContinuousClock.now
                backend.set(.accept)
                let took = try await fleetEventually(within: .seconds(20)) { !backend.notices.isEmpty }
                Self.report("postgres: B delivered the notice \(took.map { "\($0)" } ?? "never") after A was killed (lease 2 s)")
                #expect(took != nil, "B never finished the event; B's output:\n\(b.process.lines.suffix(20).joined(separator: "\n"))")
                #expect(ContinuousClock.now - killed >= .milliseconds(900), "taken over before A's lease could have passed")

                // Exactly once, and the event is done: nothing pending, step 2 not repeated.
                try await Task.sleep(for: .seconds(3))
                #expect(backend.notices == [
                    ["uid": .string(Self.uid), "kakao_id": .int(Self.kakaoID), "referrer_type": "UNLINK_FROM_APPS"],
                ])
                #expect(try fleet.unlinks().isEmpty)
                #expect(world.admin.calls(.update) == updates, "B repeated step 2, which A had finished")
                #expect(world.users.user(Self.uid)?.validSince == revoked)
            }
        } catch {
            await backend.server.stop()
            throw error
        }
        await backend.server.stop()
    }

    // MARK: 4. Linking race (serialised fleet-wide)

    @Test("Of two Kakao users linking to one account through two instances at once exactly one wins")
    func ofTwoKakaoUsersLinkingThroughTwoInstancesExactlyOneWins() async throws {
        var settings = FleetSettings()
        settings.linkingByVerifiedEmail = true
        settings.userSync = "best_effort"
        try await Fleet.with(.postgres, settings) { fleet in
            let (a, b) = try await fleet.startTwo()
            let world = fleet.world
            // Warm both instances (Google's access token, certificates), so the two logins below start together.
            #expect(try await a.exchange(world.validToken(id: 901, email: "warm.a@example.com")).status == 200)
            #expect(try await b.exchange(world.validToken(id: 902, email: "warm.b@example.com")).status == 200)

            var existing = world.users.newUser("email-user")
            existing.email = "ryan@example.com"
            existing.emailVerified = true
            existing.customAttributes = #"{"role":"admin"}"#
            _ = try world.users.create(existing)
            // Every Admin API call slowed down: both logins find the account by its email before either writes to it.
            world.admin.setFault(.delay(.milliseconds(300)))
            let first = world.validToken(id: 111, email: "ryan@example.com")
            let second = world.validToken(id: 222, email: "ryan@example.com")
            async let atA = a.exchange(first)
            async let atB = b.exchange(second)
            let replies = try await [atA, atB]
            world.admin.setFault(nil)

            #expect(replies.map(\.status).sorted() == [200, 409], "\(replies.map(\.text))")
            let winner: Int64 = replies[0].status == 200 ? 111 : 222
            let loser: Int64 = winner == 111 ? 222 : 111
            #expect(replies.first { $0.status == 200 }?.json?["uid"]?.stringValue == "email-user")
            #expect(replies.first { $0.status == 409 }?.code == "account_conflict")
            let account = try #require(world.users.user("email-user"))
            let claims = try #require(JSONValue.parse(Array((account.customAttributes ?? "").utf8)))
            #expect(claims["kakao_id"]?.int64Value == winner, "\(account.customAttributes ?? "")")
            #expect(claims["role"]?.stringValue == "admin")
            #expect(world.users.user("kakao:\(winner)")?.customAttributes == #"{"linked_uid":"email-user"}"#)
            #expect(world.users.user("kakao:\(loser)") == nil, "the loser leaves no link record")
        }
    }

    // MARK: 5. A restart on one SQLite file (durable)

    @Test("A restart on the same SQLite file keeps used nonces and pending unlink steps, finished once the backend recovers")
    func aRestartOnTheSameSQLiteFileKeepsNoncesAndPendingSteps() async throws {
        var settings = FleetSettings()
        settings.oidc = true
        settings.unlink = true
        settings.unlinkDeadlineMS = 500
        try await Fleet.with(.sqlite, settings) { fleet in
            let world = fleet.world
            let first = try await fleet.start("A")
            let token = try fleet.idToken(nonce: try await first.nonce())
            let login = try await first.exchange(token)
            #expect(login.status == 200, "\(login.text)")

            // Another Kakao user (no Firebase user) unlinks while the backend refuses: the event stays pending.
            let leaver: Int64 = 987_654_321
            world.backend.setUnlinkFault(.httpStatus(500, body: "{}"))
            #expect(try await first.unlinkWebhook(userID: leaver).status == 200)
            #expect(try await first.terminate() == 0, "\(first.process.lines.suffix(8).joined(separator: "\n"))")

            let before = try fleet.unlinks()
            #expect(before.count == 1, "\(before)")
            #expect(before.first?["kakao_id"]?.int64Value == leaver)
            #expect(before.first?["state"]?.stringValue == "pending")
            #expect(before.first?["backend"]?["state"]?.stringValue == "pending")
            #expect(before.first?["backend"]?["error"]?.stringValue == "backend_rejected", "\(before)")

            let second = try await fleet.start("A again")
            let replay = try await second.exchange(token)
            #expect(replay.status == 401, "\(replay.text)")
            #expect(replay.code == "invalid_kakao_id_token")
            #expect(replay.json?["detail"]?.stringValue?.contains("already used") == true, "\(replay.text)")
            let after = try fleet.unlinks()
            #expect(after.count == 1, "\(after)")
            #expect(after.first?["id"] == before.first?["id"])
            #expect(after.first?["state"]?.stringValue == "pending")
            #expect(world.backend.unlinkNotices.isEmpty)

            world.backend.setUnlinkFault(nil)
            // Backoff from 1 s, doubling: a few attempts have passed, so the next may be 8 s or more away.
            let took = try await fleetEventually(within: .seconds(40)) { !world.backend.unlinkNotices.isEmpty }
            #expect(took != nil, "the pending step was never finished; output:\n\(second.process.lines.suffix(20).joined(separator: "\n"))")
            #expect(world.backend.unlinkNotices == [["uid": .null, "kakao_id": .int(leaver), "referrer_type": "UNLINK_FROM_APPS"]])
            #expect(try fleet.unlinks().isEmpty)
            #expect(try await second.terminate() == 0, "\(second.process.lines.suffix(8).joined(separator: "\n"))")
        }
    }
}
