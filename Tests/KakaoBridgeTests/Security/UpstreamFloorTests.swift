import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport
import UpstreamFakes

/// A faulty upstream must not defeat the caches nor speak to anonymous app users: an access token that claims a short life
/// is still kept a while, but never past its expiry, and Google's `error_description` reaches the log only.
@Suite("Upstream floors and Google's descriptions")
struct UpstreamFloorTests {
    @Test func anAccessTokenThatClaimsFiveMinutesOrLessIsStillKeptHalfAMinute() async throws {
        let clock = ManualUnixClock()
        try await RouterWorld.with(AccessTokenTests.options(clock)) { world async throws in
            world.googleTokens.answer(expiresIn: 60)
            for id in Int64(1)...5 {
                #expect(try await world.exchange(world.validToken(id: id)).status == 200)
            }
            clock.advance(29)
            #expect(try await world.exchange(world.validToken(id: 6)).status == 200)
            #expect(world.googleTokens.fetches == 1, "one fetch for six logins within half a minute")
            clock.advance(2)
            #expect(try await world.exchange(world.validToken(id: 7)).status == 200)
            #expect(world.googleTokens.fetches == 2)
        }
    }

    @Test func theKeepTimeFollowsGooglesLifetimeWithAFloor() {
        #expect(AccessTokenCache.keepSeconds(expiresIn: 3599) == 3299)
        #expect(AccessTokenCache.keepSeconds(expiresIn: 400) == 200)
        #expect(AccessTokenCache.keepSeconds(expiresIn: 300) == 150)
        #expect(AccessTokenCache.keepSeconds(expiresIn: 45) == 30)
        // Never past the token's expiry, however short: an expired token would fail the Admin call it is sent with.
        #expect(AccessTokenCache.keepSeconds(expiresIn: 20) == 20)
        #expect(AccessTokenCache.keepSeconds(expiresIn: 1) == 1)
        #expect(AccessTokenCache.keepSeconds(expiresIn: 0) == 0)
    }

    @Test func anAccessTokenThatExpiresWithinHalfAMinuteIsNotKeptPastItsExpiry() async throws {
        let clock = ManualUnixClock()
        try await RouterWorld.with(AccessTokenTests.options(clock)) { world async throws in
            world.googleTokens.answer(expiresIn: 10)
            #expect(try await world.exchange(world.validToken(id: 1)).status == 200)
            clock.advance(9)
            #expect(try await world.exchange(world.validToken(id: 2)).status == 200)
            #expect(world.googleTokens.fetches == 1)
            clock.advance(1)
            #expect(try await world.exchange(world.validToken(id: 3)).status == 200)
            #expect(world.googleTokens.fetches == 2, "the token expired: a new one is fetched")
        }
    }

    @Test func googlesErrorDescriptionGoesToTheLogNotToTheProblemBody() throws {
        let body = Array(#"{"error":"invalid_grant","error_description":"Invalid JWT Signature. account=bridge@p.iam.gserviceaccount.com"}"#.utf8)
        guard case .fail(let refused, _) = GoogleTokenClient.failures.verdict(.success(.init(status: 400, headers: [], body: body))) else {
            Issue.record("a refusal was taken for an answer")
            return
        }
        #expect(refused.detail.contains("invalid_grant"))
        #expect(!refused.detail.contains("Invalid JWT Signature"))
        #expect(!refused.detail.contains("account="))
        #expect(refused.upstreamMessage == "Invalid JWT Signature. [address]", "the operator's log gets it, with no address")
        let rendered = String(decoding: ProblemBody(refused, requestID: "r").jsonBytes, as: UTF8.self)
        #expect(!rendered.contains("Invalid JWT Signature"))
    }
}
