import BridgeJSON
import BridgeSupport

/// A Naver user as the service reports them (docs/api.md#the-naver-user-object). Fields Naver did not return stay `nil`
/// and are omitted from JSON; the email is Naver's "연락처 이메일", with no verified flag, so it is only ever shown.
public struct NaverUser: Sendable, Equatable {
    /// Per application: numeric text for apps made before 2021-05, base64 text (at most 64 characters) after.
    public var id: String
    public var nickname: String?
    public var name: String?
    public var profileImageURL: String?
    public var email: String?

    public init(id: String, nickname: String? = nil, name: String? = nil, profileImageURL: String? = nil, email: String? = nil) {
        self.id = id
        self.nickname = nickname
        self.name = name
        self.profileImageURL = profileImageURL
        self.email = email
    }
}

extension NaverUser: ProviderProfile {
    public static var provider: Provider { .naver }
    public var uidSuffix: String { id }
    /// The nickname, else the name (docs/api.md#user-sync).
    public var displayName: String? { nickname ?? name }
    public var photoURL: String? { profileImageURL }
    /// Never: Naver's email carries no verified flag, and a Naver login never writes an email into Firebase.
    public var verifiedEmail: String? { nil }
    public var claim: ProviderClaim { ProviderClaim(provider: .naver, id: .text(id)) }
    public var markKey: Int64 { Self.markKey(ofTextID: id) }

    public func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("id")
        writer.string(id)
        writer.member("nickname", nickname)
        writer.member("name", name)
        writer.member("profile_image_url", profileImageURL)
        writer.member("email", email)
        writer.closeObject()
    }
}

/// `GET /v1/nid/me`'s answer: `{"resultcode", "message", "response": {"id", "nickname", "name", "email",
/// "profile_image", …}}`. Unknown fields (gender, age, birthday, mobile, the internal `enc_id`) are never read.
package struct NaverMe {
    package var resultcode: String
    package var response: NaverUser?
}

extension NaverMe: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        resultcode = try json.required("resultcode", \.stringValue)
        response = try json.member("response").map { profile throws(JSONMismatch) in
            NaverUser(
                id: try profile.optional("id", \.stringValue) ?? "",
                nickname: try profile.optional("nickname", \.stringValue),
                name: try profile.optional("name", \.stringValue),
                profileImageURL: try profile.optional("profile_image", \.stringValue),
                email: try profile.optional("email", \.stringValue)
            )
        }
    }
}
