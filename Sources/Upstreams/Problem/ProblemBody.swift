import BridgeJSON
import HTTPTypes

/// The RFC 9457 body of a `Problem`, with our `code` and `request_id` members (docs/errors.md#problem-body).
package struct ProblemBody: JSONWritable {
    package var type: String
    package var title: String
    package var status: Int
    package var detail: String
    package var code: String
    package var requestID: String
    package var login: LoginResult?

    package init(_ problem: Problem, requestID: String) {
        self.type = "urn:kakao-bridge:problem:\(problem.code.rawValue)"
        self.title = problem.title
        self.status = problem.status.code
        self.detail = problem.detail
        self.code = problem.code.rawValue
        self.requestID = requestID
        self.login = problem.login
    }
}

extension ProblemBody {
    package func write(to writer: inout JSONWriter) {
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
