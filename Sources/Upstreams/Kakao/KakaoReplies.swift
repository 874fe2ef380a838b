import BridgeJSON
import BridgeSupport

/// A Kakao user as the service reports them (docs/api.md#the-kakao-user-object): from `kakao_account` and `kakao_account.profile`, never the
/// deprecated `properties`. Fields Kakao did not return stay `nil` and are omitted from JSON.
public struct KakaoUser: Sendable, Equatable {
    public var id: Int64
    public var nickname: String?
    public var email: String?
    public var emailVerified: Bool?
    public var profileImageURL: String?

    public init(id: Int64, nickname: String? = nil, email: String? = nil, emailVerified: Bool? = nil, profileImageURL: String? = nil) {
        self.id = id
        self.nickname = nickname
        self.email = email
        self.emailVerified = emailVerified
        self.profileImageURL = profileImageURL
    }
}

/// Kakao's user behind the provider interface (docs/api.md#providers): the answers are what they always were.
extension KakaoUser: ProviderProfile {
    public static var provider: Provider { .kakao }
    public var uidSuffix: String { String(id) }
    public var displayName: String? { nickname }
    public var photoURL: String? { profileImageURL }
    /// The email only when Kakao vouched for it twice (`KakaoMe.user` keeps it only then).
    public var verifiedEmail: String? {
        guard let email, !email.isEmpty, emailVerified == true else { return nil }
        return email
    }
    public var claim: ProviderClaim { ProviderClaim(provider: .kakao, id: .number(id)) }
    public var markKey: Int64 { id }

    /// docs/api.md#the-kakao-user-object; `JSONWriterTests` holds it next to what Foundation writes.
    public func write(to writer: inout JSONWriter) {
        writer.openObject()
        writer.key("id")
        writer.int(id)
        writer.member("nickname", nickname)
        writer.member("email", email)
        writer.member("email_verified", emailVerified)
        writer.member("profile_image_url", profileImageURL)
        writer.closeObject()
    }
}

/// The parts of Kakao's answers the service reads. Unknown fields are ignored; the deprecated `appId` is never read.
package struct KakaoTokenInfo {
    package var id: Int64
    package var expires_in: Int64?
    package var app_id: Int64
}

package struct KakaoMe {
    package struct Account {
        package struct Profile {
            package var nickname: String?
            package var profile_image_url: String?
        }
        package var profile: Profile?
        package var email: String?
        package var is_email_valid: Bool?
        package var is_email_verified: Bool?
    }
    package var id: Int64
    package var kakao_account: Account?

    /// Email only when Kakao vouches for it twice (docs/api.md#the-kakao-user-object): an unverified email must not be taken as proof of identity.
    package var user: KakaoUser {
        let account = kakao_account
        let trusted = account?.is_email_valid == true && account?.is_email_verified == true && account?.email != nil
        return KakaoUser(
            id: id,
            nickname: account?.profile?.nickname,
            email: trusted ? account?.email : nil,
            emailVerified: trusted ? true : nil,
            profileImageURL: account?.profile?.profile_image_url
        )
    }
}

/// Kakao's error body: `{"msg": "...", "code": -401}`.
package struct KakaoErrorReply {
    package var code: Int
}

// Read member by member from the parsed answer (docs/api.md#the-kakao-user-object: only `kakao_account` and its `profile`, never `properties`).

extension KakaoTokenInfo: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        // Ids must be exact JSON integers: `1234567890.0` or `1.2e9` is a broken answer, not a user.
        id = try json.required("id", \.intValue)
        expires_in = try json.optional("expires_in", \.int64Value)
        app_id = try json.required("app_id", \.intValue)
    }
}

extension KakaoMe: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        id = try json.required("id", \.intValue)
        kakao_account = try json.member("kakao_account").map { account throws(JSONMismatch) in try Account(json: account) }
    }
}

extension KakaoMe.Account: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        profile = try json.member("profile").map { profile throws(JSONMismatch) in try Profile(json: profile) }
        email = try json.optional("email", \.stringValue)
        is_email_valid = try json.optional("is_email_valid", \.boolValue)
        is_email_verified = try json.optional("is_email_verified", \.boolValue)
    }
}

extension KakaoMe.Account.Profile: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        nickname = try json.optional("nickname", \.stringValue)
        profile_image_url = try json.optional("profile_image_url", \.stringValue)
    }
}

extension KakaoErrorReply: JSONDecodable {
    package init(json: JSONValue) throws(JSONMismatch) {
        guard let code = try json.required("code", \.int64Value).exactInt else { throw JSONMismatch() }
        self.code = code
    }
}

extension Int64 {
    fileprivate var exactInt: Int? { Int(exactly: self) }
}
