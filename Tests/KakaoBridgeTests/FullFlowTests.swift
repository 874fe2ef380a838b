import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import StandIns
import Testing
import EndToEndSupport
import UpstreamFakes

/// Steps 4–6 (docs/api.md#the-six-step-flow): the Identity Toolkit exchange and the backend's login completion, with
/// their failures (docs/errors.md).
@Suite struct FullFlowTests {
    static var firebaseOnly: TestWorld.Options {
        var options = TestWorld.Options()
        options.firebase = true
        return options
    }

    static var allSteps: TestWorld.Options {
        var options = TestWorld.Options()
        options.backend = true
        return options
    }

    @Test func firebaseSessionIsReturnedWithIntegerExpiry() async throws {
        try await TestWorld.with(Self.firebaseOnly) { world in
            let reply = try await world.exchange(world.validToken())
            #expect(reply.status == 200, "\(reply.text)")
            let firebase = try #require(reply.json?["firebase"])
            #expect(firebase["expires_in"] == .int(3600))
            #expect(firebase["is_new_user"] == .bool(true))
            #expect(firebase["id_token"]?.stringValue?.split(separator: ".").count == 3)
            #expect(firebase["refresh_token"]?.stringValue?.isEmpty == false)
            #expect(reply.json?["login"] == nil)
            #expect(world.identityToolkit.acceptedTokens == 1)

            let again = try await world.exchange(world.validToken())
            #expect(again.json?["firebase"]?["is_new_user"] == .bool(false))
        }
    }

    @Test func allSixStepsCarryTheUserToTheBackendAndTheHookConfirmsThem() async throws {
        try await TestWorld.with(Self.allSteps) { world in
            let kakaoToken = world.validToken()
            let reply = try await world.exchange(kakaoToken)
            #expect(reply.status == 200, "\(reply.text)")
            let login = try #require(reply.json?["login"])
            #expect(login["status"] == .int(200))
            #expect(login["body"]?["meta"]?["code"] == .int(200))
            // Step 6's body is exactly what apps in the field send.
            let sent = try #require(world.backend.lastRequest)
            #expect(sent.kakaoToken == kakaoToken)
            #expect(sent.token == reply.json?["firebase"]?["id_token"]?.stringValue)
            // The backend asked the hook who the user is, and the hook confirmed.
            #expect(world.backend.lastHookStatus == 200)
        }
    }

    @Test func googleRejectionNamesGooglesCode() async throws {
        try await TestWorld.with(Self.firebaseOnly) { world in
            world.identityToolkit.setFault(.httpStatus(400, body: #"{"error":{"code":400,"message":"INVALID_CUSTOM_TOKEN : The custom token format is incorrect.","status":"INVALID_ARGUMENT"}}"#))
            let reply = try await world.exchange(world.validToken())
            ErrorMappingTests.expectProblem(reply, 502, "firebase_rejected")
            #expect(reply.json?["detail"]?.stringValue?.contains("INVALID_CUSTOM_TOKEN") == true)
        }
    }

    @Test func wrongWebAPIKeyIsARejection() async throws {
        var options = Self.firebaseOnly
        options.configure = { $0.firebase.webAPIKey = "not-the-key" }
        try await TestWorld.with(options) { world in
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_rejected")
        }
    }

    @Test func googleOutagesAndDeadline() async throws {
        var options = Self.firebaseOnly
        options.configure = { $0.upstream.timeoutMS = 500 }
        try await TestWorld.with(options) { world in
            world.identityToolkit.setFault(.httpStatus(503, body: #"{"error":{"code":503,"message":"UNAVAILABLE"}}"#))
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_unavailable")
            world.identityToolkit.setFault(.rawBody("<html>oops</html>", contentType: "text/html"))
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_unavailable")
            world.identityToolkit.setFault(.delay(.seconds(2)))
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 504, "upstream_timeout")
        }
    }

    @Test func identityToolkitUnreachable() async throws {
        var options = Self.firebaseOnly
        options.configure = { $0.firebase.identityToolkitURL = "http://127.0.0.1:9" }
        try await TestWorld.with(options) { world in
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "firebase_unavailable")
        }
    }

    @Test func backendRejectionCarriesItsAnswer() async throws {
        try await TestWorld.with(Self.allSteps) { world in
            world.backend.setFault(.httpStatus(403, body: #"{"meta":{"code":403,"message":"banned"}}"#))
            let reply = try await world.exchange(world.validToken())
            ErrorMappingTests.expectProblem(reply, 502, "backend_rejected")
            #expect(reply.json?["login"]?["status"] == .int(403))
            #expect(reply.json?["login"]?["body"]?["meta"]?["message"]?.stringValue == "banned")
        }
    }

    @Test func backendUnreachableAndSlow() async throws {
        var options = Self.allSteps
        options.configure = { $0.backend.loginCompleteURL = "http://127.0.0.1:9/login" }
        try await TestWorld.with(options) { world in
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 502, "backend_unavailable")
        }
        var slow = Self.allSteps
        slow.configure = { $0.upstream.timeoutMS = 500 }
        try await TestWorld.with(slow) { world in
            world.backend.setFault(.delay(.seconds(2)))
            ErrorMappingTests.expectProblem(try await world.exchange(world.validToken()), 504, "upstream_timeout")
        }
    }
}
