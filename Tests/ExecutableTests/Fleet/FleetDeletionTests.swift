import BridgeJSON
import BridgeSupport
import Foundation
import StandIns
import Testing
import EndToEndSupport

/// An account deletion (docs/api.md#deleting-an-account) on a fleet: two `kakao-bridge serve` processes on one throwaway
/// PostgreSQL. Kakao's unlink fails at the instance that recorded the deletion, which then dies; the other instance
/// finishes the step from the store once Kakao recovers, and the deletion's record answers at either.
@Suite("An account deletion on a fleet", .serialized)
struct FleetDeletionTests {
    static let kakaoID: Int64 = 1_234_567_890
    static let uid = "kakao:1234567890"

    @Test("A pending deletion at a killed instance is finished by the other once Kakao recovers")
    func aPendingDeletionIsFinishedByTheOtherInstance() async throws {
        var settings = FleetSettings()
        settings.unlink = true
        settings.unlinkLeaseSeconds = 2
        settings.unlinkDeadlineMS = 500
        try await Fleet.with(.postgres, settings) { fleet in
            let (a, b) = try await fleet.startTwo()
            let world = fleet.world
            #expect(try await a.exchange(world.validToken()).status == 200)
            world.kakao.setUnlinkFault(.errorCode(-1, httpStatus: 500))

            let reply = try await a.deleteUser(Self.uid)
            #expect(reply.status == 202, "\(reply.text)")
            #expect(reply.json?["steps"]?["provider_unlink"] == "pending")
            #expect(try await fleetEventually(within: .seconds(10)) { world.users.user(Self.uid) == nil } != nil)
            let pending = try fleet.unlinks()
            #expect(pending.count == 1, "\(pending)")
            #expect(pending.first?["kind"] == "deletion")
            #expect(pending.first?["provider_unlink"]?["state"] == "pending")
            // The other instance answers from the same record.
            #expect(try await b.deleteUser(Self.uid).status == 202)

            try await a.kill()
            world.kakao.setUnlinkFault(nil)
            let took = try await fleetEventually(within: .seconds(20)) { world.kakao.unlinkedByAdmin == [Self.kakaoID] }
            #expect(took != nil, "B never finished Kakao's unlink; B's output:\n\(b.process.lines.suffix(20).joined(separator: "\n"))")
            try await fleetEventually(within: .seconds(10)) { try await b.deleteUser(Self.uid).status == 200 }
            let done = try await b.deleteUser(Self.uid)
            #expect(done.status == 200, "\(done.text)")
            #expect(done.json?["steps"] == ["provider_unlink": "done", "firebase_user": "done", "backend": "done"])
            #expect(world.backend.unlinkNotices.count == 1)
            #expect(try fleet.unlinks().isEmpty)
        }
    }
}
