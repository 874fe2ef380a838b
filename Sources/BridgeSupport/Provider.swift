/// The identity providers the service verifies (docs/api.md#providers): Kakao, the default, and Naver and LINE beside it.
/// The raw value is what `GET /v1/token-exchange?provider=` takes, the hook's `provider` member, the custom token's
/// `provider` claim and the `provider` label of the login metrics.
public enum Provider: String, CaseIterable, Sendable, Equatable, Hashable {
    case kakao
    case naver
    case line

    /// The query value as sent: exact and lowercase (`?provider=Naver` is not a provider, so a typo is a 400, not Kakao).
    public init?(queryValue: Substring) {
        guard let provider = Provider(rawValue: String(queryValue)) else { return nil }
        self = provider
    }

    /// The name people read in a problem's detail or a log line.
    public var displayName: String {
        switch self {
        case .kakao: "Kakao"
        case .naver: "Naver"
        case .line: "LINE"
        }
    }
}
