/// The sizes the service refuses past (docs/api.md#conventions), read by the body reader, the problem mapping and the
/// token checks.
enum RequestLimits {
    /// docs/api.md#conventions: bodies over 64 KiB are refused.
    static let maxBodyBytes = 64 * 1024
    /// Real Kakao access tokens are ~54 characters; anything far longer is not one and is not sent to Kakao.
    static let maxTokenBytes = 2048
}
