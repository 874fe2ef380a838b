import BridgeJSON
import HTTPTypes

/// The RFC 9457 body of a `Problem`, with our `code` and `request_id` members (docs/errors.md#problem-body).
struct ProblemBody: JSONWritable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var code: String
    var requestID: String
    var login: LoginResult?

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

extension ProblemBody {
    func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("type")
        writer.string(type)
        writer.key("title")
        writer.string(title)
        writer.key("status")
        writer.int(status)
        writer.key("detail")
        writer.string(detail)
        writer.key("code")
        writer.string(code)
        writer.key("request_id")
        writer.string(requestID)
        writer.member("login", login)
        writer.closeObject()
    }
}
