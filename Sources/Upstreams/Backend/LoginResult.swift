import BridgeJSON

/// Step 6: the backend's answer, passed back to the app as it came (`login` in docs/api.md#get-v1token-exchange).
public struct LoginResult: Sendable, Equatable {
    public var status: Int
    public var body: JSONValue

    public init(status: Int, body: JSONValue) {
        self.status = status
        self.body = body
    }
}

/// POSTs `{"kakao_token", "token"}` to the app's backend, as apps in the field do.
public protocol BackendCompleting: Sendable {
    func completeLogin(kakaoToken: String, idToken: String, context: CallContext) async throws(Problem) -> LoginResult
}

/// As the answer's `login` member and `backend_rejected`'s problem body carry it.
extension LoginResult: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("status")
        writer.int(status)
        writer.key("body")
        writer.value(body)
        writer.closeObject()
    }
}
