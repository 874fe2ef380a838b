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
