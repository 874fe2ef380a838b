import HTTPTypes
import Foundation

/// The RFC 9457 body of a `Problem`, with the contract's `code` and `request_id` members.
struct ProblemBody: Encodable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var code: String
    var requestID: String
    var login: LoginResult?

    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, code, login
        case requestID = "request_id"
    }

    init(_ problem: Problem, requestID: String) {
        self.type = "urn:kakao-bridge:problem:\(problem.codeName)"
        self.title = problem.title
        self.status = problem.status.code
        self.detail = problem.detail
        self.code = problem.codeName
        self.requestID = requestID
        self.login = problem.login
    }
}
