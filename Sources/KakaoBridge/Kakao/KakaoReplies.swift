/// The parts of Kakao's answers the service reads. Unknown fields are ignored; the deprecated `appId` is never read.
struct KakaoTokenInfo: Decodable {
    var id: Int64
    var expires_in: Int64?
    var app_id: Int64
}

struct KakaoMe: Decodable {
    struct Account: Decodable {
        struct Profile: Decodable {
            var nickname: String?
            var profile_image_url: String?
        }
        var profile: Profile?
        var email: String?
        var is_email_valid: Bool?
        var is_email_verified: Bool?
    }
    var id: Int64
    var kakao_account: Account?

    /// Email only when Kakao vouches for it twice (§2): an unverified email must not be taken as proof of identity.
    var user: KakaoUser {
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
struct KakaoErrorReply: Decodable {
    var code: Int
}
