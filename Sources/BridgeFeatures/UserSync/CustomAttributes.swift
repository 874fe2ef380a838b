import BridgeJSON

/// A Firebase user's custom claims (`customAttributes`, a JSON object written as a string), read and changed without ever
/// dropping a claim the service does not own (docs/api.md#linking-to-an-existing-firebase-account).
struct CustomAttributes: Sendable, Equatable {
    private(set) var members: [String: JSONValue]

    /// `nil` or an empty string is no claims; anything that is not a JSON object is refused (merging into it would lose
    /// what the app stored there).
    init?(_ text: String?) {
        guard let text, !text.isEmpty else {
            members = [:]
            return
        }
        guard case .object(let object)? = JSONValue.parse(Array(text.utf8)) else { return nil }
        members = object
    }

    init(_ members: [String: JSONValue]) { self.members = members }

    /// `kakao_id` as a number or a decimal string (an app may have written either by hand); `nil` when absent.
    var kakaoID: Int64? { Self.kakaoID(members["kakao_id"]) }

    /// A `kakao_id` claim read as custom claims and ID tokens carry it: a number, or the same digits as a string.
    static func kakaoID(_ value: JSONValue?) -> Int64? {
        guard let value else { return nil }
        return value.intValue ?? value.stringValue.flatMap { Int64($0) }
    }

    /// A link record's pointer to the account it stands for.
    var linkedUID: String? { members["linked_uid"]?.stringValue }

    func setting(_ key: String, _ value: JSONValue) -> CustomAttributes {
        var copy = self
        copy.members[key] = value
        return copy
    }

    func removing(_ key: String) -> CustomAttributes {
        var copy = self
        copy.members[key] = nil
        return copy
    }

    /// The string `accounts:update` takes; keys sorted so that equal claims are equal text.
    var serialized: String { JSONValue.object(members).serializedString }
}
