import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import KakaoBridgeClient
import XCTest

/// The example's login against a stand-in bridge: the nonce reaches Kakao, the ID token reaches the bridge as a Bearer
/// value, the custom token reaches Firebase, and a problem body becomes `BridgeProblem`.
final class SignInWithKakaoTests: XCTestCase {
    let base = URL(string: "https://bridge.example.com")!

    func testTheCustomTokenSignsInAndTheIDTokenIsTheBearerValue() async throws {
        let bridge = StandInBridge(answers: [
            "/v1/kakao/nonce": (200, #"{"nonce":"n-123","expires_in":600}"#),
            "/v1/token-exchange": (200, #"{"uid":"kakao:42","custom_token":"custom-abc","custom_token_expires_in":3600,"kakao":{"id":42,"nickname":"Ryan"}}"#),
        ])
        let kakao = StandInKakao()
        let firebase = StandInFirebase()
        let uid = try await signInWithKakao(
            kakao: kakao, bridge: BridgeClient(baseURL: base, transport: bridge), firebase: firebase, openIDConnect: true
        )
        XCTAssertEqual(uid, "kakao:42")
        XCTAssertEqual(kakao.nonces.value, ["n-123"])
        XCTAssertEqual(firebase.customTokens.value, ["custom-abc"])
        XCTAssertEqual(bridge.requests.value.last?.value(forHTTPHeaderField: "Authorization"), "Bearer id-token-for-n-123")
        XCTAssertEqual(bridge.requests.value.last?.url?.query, nil, "the token never goes into the URL")
    }

    func testAProblemBodyIsABridgeProblem() async throws {
        let body = #"{"type":"urn:kakao-bridge:problem:kakao_app_mismatch","title":"Kakao token issued to another app","status":401,"detail":"The Kakao token was issued to another Kakao app.","code":"kakao_app_mismatch","request_id":"5f0c"}"#
        let bridge = StandInBridge(answers: ["/v1/token-exchange": (401, body)])
        do {
            _ = try await BridgeClient(baseURL: base, transport: bridge).exchange(kakaoToken: "token")
            XCTFail("expected a problem")
        } catch let problem as BridgeProblem {
            XCTAssertEqual(problem.code, "kakao_app_mismatch")
            XCTAssertEqual(problem.requestID, "5f0c")
            XCTAssertFalse(problem.isTemporary)
        }
    }
}

final class Recorded<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}

struct StandInBridge: BridgeTransport {
    let answers: [String: (Int, String)]
    let requests = Recorded<[URLRequest]>([])

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        requests.update { $0.append(request) }
        let (status, body) = answers[request.url?.path ?? ""] ?? (404, #"{"status":404,"code":"not_found","detail":"","request_id":"x"}"#)
        let response = HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
        return (Data(body.utf8), response)
    }
}

struct StandInKakao: KakaoLoggingIn {
    let nonces = Recorded<[String?]>([])

    func login(nonce: String?) async throws -> KakaoTokens {
        nonces.update { $0.append(nonce) }
        return KakaoTokens(accessToken: "access-token", idToken: nonce.map { "id-token-for-\($0)" })
    }
}

struct StandInFirebase: FirebaseSigningIn {
    let customTokens = Recorded<[String]>([])

    func signIn(withCustomToken customToken: String) async throws -> String {
        customTokens.update { $0.append(customToken) }
        return "kakao:42"
    }
}
