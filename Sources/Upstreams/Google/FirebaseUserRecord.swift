import BridgeJSON

/// A Firebase user as `accounts:lookup` returns it (docs/api.md#firebase-user-records): only the fields the service reads.
public struct FirebaseUserRecord: Sendable, Equatable {
    public var uid: String
    public var displayName: String?
    public var photoURL: String?
    public var email: String?
    public var emailVerified: Bool
    public var disabled: Bool
    /// Seconds since the epoch; ID tokens whose session began earlier are revoked. Google sends it as a string.
    public var validSince: Int64?
    /// The custom claims, a JSON object written as a string.
    public var customAttributes: String?

    public init(
        uid: String, displayName: String? = nil, photoURL: String? = nil, email: String? = nil, emailVerified: Bool = false,
        disabled: Bool = false, validSince: Int64? = nil, customAttributes: String? = nil
    ) {
        self.uid = uid
        self.displayName = displayName
        self.photoURL = photoURL
        self.email = email
        self.emailVerified = emailVerified
        self.disabled = disabled
        self.validSince = validSince
        self.customAttributes = customAttributes
    }
}

extension FirebaseUserRecord: JSONDecodable {
    public init(json: JSONValue) throws(JSONMismatch) {
        uid = try json.required("localId", \.stringValue)
        displayName = try json.optional("displayName", \.stringValue)
        photoURL = try json.optional("photoUrl", \.stringValue)
        email = try json.optional("email", \.stringValue)
        emailVerified = try json.optional("emailVerified", \.boolValue) ?? false
        disabled = try json.optional("disabled", \.boolValue) ?? false
        // A decimal string of seconds; tolerate a number, as Google's own clients do.
        validSince = try json.optional("validSince") { $0.stringValue.flatMap { Int64($0) } ?? $0.int64Value }
        customAttributes = try json.optional("customAttributes", \.stringValue)
    }
}

/// A new user for `POST {admin}/accounts`; absent fields are omitted.
public struct NewFirebaseUser: Sendable, Equatable, JSONWritable {
    public var uid: String
    public var displayName: String?
    public var photoURL: String?
    public var email: String?
    /// Written only together with `email`.
    public var emailVerified: Bool?
    /// `true` only for a link record (docs/api.md#linking-to-an-existing-firebase-account), whose custom attributes an update writes next.
    public var disabled: Bool?

    public init(
        uid: String, displayName: String? = nil, photoURL: String? = nil, email: String? = nil, emailVerified: Bool? = nil,
        disabled: Bool? = nil
    ) {
        self.uid = uid
        self.displayName = displayName
        self.photoURL = photoURL
        self.email = email
        self.emailVerified = emailVerified
        self.disabled = disabled
    }

    public func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("localId")
        writer.string(uid)
        writer.member("displayName", displayName)
        writer.member("photoUrl", photoURL)
        writer.member("email", email)
        if email != nil { writer.member("emailVerified", emailVerified) }
        writer.member("disabled", disabled)
        writer.closeObject()
    }
}

/// `POST {admin}/accounts:update`: the uid and only what changes.
public struct FirebaseUserUpdate: Sendable, Equatable, JSONWritable {
    public enum Attribute: String, Sendable {
        case displayName = "DISPLAY_NAME"
        case photoURL = "PHOTO_URL"
    }

    public var uid: String
    public var displayName: String?
    public var photoURL: String?
    public var email: String?
    public var emailVerified: Bool?
    /// `disableUser`.
    public var disabled: Bool?
    /// Seconds; "revoke sessions".
    public var validSince: Int64?
    /// A JSON object as a string.
    public var customAttributes: String?
    public var deleteAttributes: [Attribute] = []

    public init(uid: String) { self.uid = uid }

    /// Whether the update changes anything at all.
    public var isEmpty: Bool {
        displayName == nil && photoURL == nil && email == nil && emailVerified == nil && disabled == nil && validSince == nil
            && customAttributes == nil && deleteAttributes.isEmpty
    }

    /// The same update without the email: what is sent again after `EMAIL_EXISTS`.
    public var withoutEmail: FirebaseUserUpdate {
        var copy = self
        copy.email = nil
        copy.emailVerified = nil
        return copy
    }

    public func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("localId")
        writer.string(uid)
        writer.member("displayName", displayName)
        writer.member("photoUrl", photoURL)
        writer.member("email", email)
        writer.member("emailVerified", emailVerified)
        writer.member("disableUser", disabled)
        // Google takes a number or a decimal string; the Admin SDKs send the number.
        writer.member("validSince", validSince)
        writer.member("customAttributes", customAttributes)
        if !deleteAttributes.isEmpty {
            writer.key("deleteAttribute")
            writer.openArray()
            for attribute in deleteAttributes { writer.string(attribute.rawValue) }
            writer.closeArray()
        }
        writer.closeObject()
    }
}
