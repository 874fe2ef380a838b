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
