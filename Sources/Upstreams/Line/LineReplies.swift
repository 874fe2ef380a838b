import BridgeJSON
import BridgeSupport

/// A LINE user as the service reports them (docs/api.md#the-line-user-object). Fields LINE did not return stay `nil` and
/// are omitted from JSON. `email` comes only from an ID token, and is never treated as verified.
public struct LineUser: Sendable, Equatable {
    /// `U` and 32 lowercase hex digits; the same for every channel of one LINE provider.
    public var id: String
    public var displayName: String?
    public var pictureURL: String?
    public var email: String?

    public init(id: String, displayName: String? = nil, pictureURL: String? = nil, email: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.pictureURL = pictureURL
        self.email = email
    }

    /// `U` and 32 lowercase hex digits (docs/api.md#line-id-tokens).
    public static func isUserID(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count == 33, bytes.first == UInt8(ascii: "U") else { return false }
        return bytes.dropFirst().allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) }
    }
}

extension LineUser: ProviderProfile {
    public static var provider: Provider { .line }
    public var uidSuffix: String { id }
    public var photoURL: String? { pictureURL }
    /// Never: LINE documents no verified flag for its email, which never reaches Firebase.
    public var verifiedEmail: String? { nil }
    public var claim: ProviderClaim { ProviderClaim(provider: .line, id: .text(id)) }
    public var markKey: Int64 { Self.markKey(ofTextID: id) }

    public func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("id")
        writer.string(id)
        writer.member("display_name", displayName)
        writer.member("picture_url", pictureURL)
        writer.member("email", email)
        writer.closeObject()
    }
}

/// `GET /oauth2/v2.1/verify`'s answer: `{"scope", "client_id", "expires_in"}`.
package struct LineVerifyReply {
    package var clientID: String
    package var expiresIn: Int64
}

/// `GET /v2/profile`'s answer: `{"userId", "displayName", "pictureUrl"?, "statusMessage"?}` (the status message is never read).
package struct LineProfileReply {
    package var user: LineUser
}

/// LINE's error body: `{"error": "invalid_request", "error_description": "access token expired"}`, or `{"message": …}`.
package struct LineErrorReply {
    package var error: String?
}

extension LineVerifyReply: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        clientID = try json.required("client_id", \.stringValue)
        expiresIn = try json.required("expires_in", \.int64Value)
    }
}

extension LineProfileReply: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        user = LineUser(
            id: try json.required("userId", \.stringValue),
            displayName: try json.optional("displayName", \.stringValue),
            pictureURL: try json.optional("pictureUrl", \.stringValue)
        )
    }
}

extension LineErrorReply: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        error = try json.optional("error", \.stringValue)
    }
}
