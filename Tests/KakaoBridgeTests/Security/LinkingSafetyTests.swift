import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import Upstreams
import EndToEndSupport
import UpstreamFakes

/// The safety rules of linking by email (docs/api.md#linking-to-an-existing-firebase-account) at the router's depth
/// (issue 27): races to one account, link records that no longer stand, accounts of this service's own, and emails
/// compared by ASCII only. The end-to-end takeover is `TakeoverEndToEndTests`.
@Suite("Linking safety rules")
struct LinkingSafetyTests {
    static let email = "ryan@example.com"

    static func account(_ uid: String = "email-user", email: String = email, claims: String? = nil) -> FirebaseUserRecord {
        FirebaseUserRecord(uid: uid, displayName: "Ryan Lee", email: email, emailVerified: true, disabled: false, customAttributes: claims)
    }

    @Test func ofTwoKakaoUsersLinkingToOneAccountAtOnceExactlyOneWinsAndTheOtherLeavesNoLinkRecord() async throws {
        try await RouterWorld.with(LinkingTests.options()) { world async throws in
            world.admin.seed(Self.account())
            // Both logins find the account by its email before either writes to it.
            world.admin.holdEmailLookUps(until: 2)
            async let first = world.exchange(world.validToken(id: 111))
            async let second = world.exchange(world.validToken(id: 222))
            let replies = try await [first, second]
            #expect(replies.map(\.status).sorted() == [200, 409], "\(replies.map(\.text))")
            let winner: Int64 = replies[0].status == 200 ? 111 : 222
            let loser: Int64 = winner == 111 ? 222 : 111
            let claims = try #require(world.admin.user("email-user")?.customAttributes)
            #expect(CustomAttributes(claims)?.kakaoID == winner)
            #expect(world.admin.user("kakao:\(winner)")?.customAttributes == #"{"linked_uid":"email-user"}"#)
            #expect(world.admin.user("kakao:\(loser)") == nil, "the loser leaves no link record")
            #expect(replies.first { $0.status == 409 }?.code == "account_conflict")
        }
    }

    @Test func aLinkRecordWhoseAccountNamesAnotherKakaoUserIsDeletedAndTheLoginRefused() async throws {
        try await RouterWorld.with(LinkingTests.options()) { world async throws in
            world.admin.seed(Self.account(claims: #"{"kakao_id":999}"#))
            world.admin.seed(FirebaseUserRecord(
                uid: LinkingTests.kakaoUID, disabled: true, customAttributes: #"{"linked_uid":"email-user"}"#
            ))
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 409, "\(reply.text)")
            #expect(reply.code == "account_conflict")
            #expect(reply.json?["custom_token"] == nil)
            #expect(world.admin.user(LinkingTests.kakaoUID) == nil, "the stale link record is deleted")
            #expect(world.admin.user("email-user")?.customAttributes == #"{"kakao_id":999}"#)
        }
    }

    @Test func anAccountOfThisServicesOwnIsNeverALinkTargetEvenWithoutAKakaoID() async throws {
        try await RouterWorld.with(LinkingTests.options()) { world async throws in
            world.admin.seed(Self.account("kakao:111"))
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string(LinkingTests.kakaoUID))
            let created = try #require(world.admin.user(LinkingTests.kakaoUID))
            #expect(created.email == nil && created.disabled == false)
            #expect(world.admin.user("kakao:111")?.customAttributes == nil)
        }
    }

    @Test func anAddressWithANonASCIICharacterNeverLinks() async throws {
        try await RouterWorld.with(LinkingTests.options()) { world async throws in
            let unicode = "rÿan@example.com"
            world.admin.seed(Self.account(email: unicode))
            let reply = try await world.exchange(world.validToken(email: unicode))
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply.json?["uid"] == .string(LinkingTests.kakaoUID))
            #expect(world.admin.user("email-user")?.customAttributes == nil)
        }
    }

    @Test func emailsCompareByASCIICaseOnly() {
        #expect(LinkEmail.same("Ryan@Example.COM", "ryan@example.com"))
        #expect(!LinkEmail.same("ryan@example.com", "ryan@example.org"))
        #expect(!LinkEmail.same("straße@example.com", "strasse@example.com"))
        #expect(!LinkEmail.same("\u{212A}im@example.com", "kim@example.com"), "the Kelvin sign is not a k")
        #expect(!LinkEmail.same("ryan@example.com", nil))
        #expect(LinkEmail.comparable("rÿan@example.com") == nil)
    }

    @Test func linkLocksLetOneHolderInAtATimeInArrivalOrder() async throws {
        let locks = LinkLocks.inMemory()
        let order = OrderLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<5 {
                group.addTask {
                    try await locks.serialized("account") { () async throws(Problem) -> Void in
                        order.enter(index)
                        try? await Task.sleep(for: .milliseconds(5))
                        order.leave()
                    }
                }
                try await Task.sleep(for: .milliseconds(2))
            }
            try await group.waitForAll()
        }
        #expect(order.maxInside == 1)
        #expect(order.entered.count == 5)
        #expect(locks.heldCount == 0)
    }
}

private final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private(set) var maxInside = 0
    private(set) var entered: [Int] = []

    func enter(_ index: Int) {
        lock.withLock {
            inside += 1
            maxInside = max(maxInside, inside)
            entered.append(index)
        }
    }

    func leave() { lock.withLock { inside -= 1 } }
}
