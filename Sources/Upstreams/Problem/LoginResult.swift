import BridgeJSON

/// Step 6: the backend's answer, passed back to the app as it came (`login` in docs/api.md#get-v1token-exchange).
/// In the shared folder, not in Backend/, because `Problem` carries it (`backend_rejected`): a shared type naming a
/// client's type would go up the layers (scripts/layers.table).
public struct LoginResult: Sendable, Equatable {
    public var status: Int
    public var body: JSONValue

    public init(status: Int, body: JSONValue) {
        self.status = status
        self.body = body
    }
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
