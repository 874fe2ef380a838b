import BridgeJSON
import FoundationEssentials

/// A Kakao account as the stand-in knows it; nil fields are omitted from `/v2/user/me`.
public struct KakaoAccount: Sendable, Equatable {
    public var id: Int64
    public var nickname: String?
    public var email: String?
    public var isEmailValid: Bool
    public var isEmailVerified: Bool
    public var profileImageURL: String?

    public init(
        id: Int64,
        nickname: String? = nil,
        email: String? = nil,
        isEmailValid: Bool = true,
        isEmailVerified: Bool = true,
        profileImageURL: String? = nil
    ) {
        self.id = id
        self.nickname = nickname
        self.email = email
        self.isEmailValid = isEmailValid
        self.isEmailVerified = isEmailVerified
        self.profileImageURL = profileImageURL
    }

    /// Kakao's real `/v2/user/me` shape, including the deprecated `properties` the bridge must ignore. Image URLs are
    /// `https://` only when the caller asked for `secure_resource=true`, as Kakao does.
    func userMe(id answeredID: Int64, secureResource: Bool = true) -> JSONValue {
        var account: [String: JSONValue] = [:]
        var properties: [String: JSONValue] = [:]
        var profile: [String: JSONValue] = [:]
        if let nickname {
            properties["nickname"] = .string(nickname)
            profile["nickname"] = .string(nickname)
            account["profile_nickname_needs_agreement"] = .bool(false)
        }
        if var profileImageURL {
            if !secureResource, profileImageURL.hasPrefix("https://") { profileImageURL = "http://" + profileImageURL.dropFirst(8) }
            let thumbnail = profileImageURL.replacingThumbnailSize()
            properties["profile_image"] = .string(profileImageURL)
            properties["thumbnail_image"] = .string(thumbnail)
            profile["thumbnail_image_url"] = .string(thumbnail)
            profile["profile_image_url"] = .string(profileImageURL)
            profile["is_default_image"] = .bool(false)
            account["profile_image_needs_agreement"] = .bool(false)
        }
        if !profile.isEmpty {
            account["profile"] = .object(profile)
        }
        if let email {
            account["has_email"] = .bool(true)
            account["email_needs_agreement"] = .bool(false)
            account["is_email_valid"] = .bool(isEmailValid)
            account["is_email_verified"] = .bool(isEmailVerified)
            account["email"] = .string(email)
        } else {
            account["has_email"] = .bool(false)
        }
        var me: [String: JSONValue] = [
            "id": .int(answeredID),
            "connected_at": .string("2024-01-01T00:00:00Z"),
            "kakao_account": .object(account),
        ]
        if !properties.isEmpty {
            me["properties"] = .object(properties)
        }
        return .object(me)
    }
}

extension String {
    /// Kakao serves a 110x110 thumbnail beside the 640x640 image; a distinct URL keeps the two apart in tests.
    fileprivate func replacingThumbnailSize() -> String {
        contains("640x640") ? replacing("640x640", with: "110x110") : self + "?size=110"
    }
}
