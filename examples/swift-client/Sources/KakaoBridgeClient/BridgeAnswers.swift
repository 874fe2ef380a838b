import Foundation

/// `GET /v1/token-exchange`'s answer (docs/openapi.yaml, `TokenExchange`). An app with the Firebase SDK needs only
/// `customToken`; `firebase` (ID and refresh tokens) is for clients without the SDK.
public struct TokenExchange: Decodable, Sendable, Equatable {
    public var uid: String
    public var customToken: String
    public var customTokenExpiresIn: Int
    public var kakao: KakaoUser

    public struct KakaoUser: Decodable, Sendable, Equatable {
        public var id: Int64
        public var nickname: String?
        public var email: String?
    }

    enum CodingKeys: String, CodingKey {
        case uid, kakao
        case customToken = "custom_token"
        case customTokenExpiresIn = "custom_token_expires_in"
    }
}

/// `GET /v1/kakao/nonce`'s answer.
struct NonceAnswer: Decodable {
    var nonce: String
}

/// Every failure of the bridge: its problem body (docs/errors.md). Branch on `code`, never on `detail`.
public struct BridgeProblem: Error, Decodable, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var detail: String
    public var requestID: String

    enum CodingKeys: String, CodingKey {
        case status, code, detail
        case requestID = "request_id"
    }

    /// Worth asking the person to try again later (the service or an upstream is briefly unavailable).
    public var isTemporary: Bool { status == 429 || status >= 500 }
}
