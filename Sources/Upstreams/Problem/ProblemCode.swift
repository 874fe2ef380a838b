import HTTPTypes

extension Problem {
    /// The codes of docs/errors.md#codes: the closed set a problem body's `code` comes from, each with its status and
    /// title. Public so that callers switch over it instead of comparing strings.
    public enum Code: String, Sendable, CaseIterable {
        case invalidRequest = "invalid_request"
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case payloadTooLarge = "payload_too_large"
        case missingToken = "missing_token"
        case invalidKakaoToken = "invalid_kakao_token"
        case kakaoAppMismatch = "kakao_app_mismatch"
        case invalidIDToken = "invalid_id_token"
        case tokenMismatch = "token_mismatch"
        case unauthorized = "unauthorized"
        case rateLimited = "rate_limited"
        case kakaoUnavailable = "kakao_unavailable"
        case kakaoQuotaExceeded = "kakao_quota_exceeded"
        case firebaseRejected = "firebase_rejected"
        case firebaseUnavailable = "firebase_unavailable"
        case backendRejected = "backend_rejected"
        case backendUnavailable = "backend_unavailable"
        case upstreamTimeout = "upstream_timeout"
        case notReady = "not_ready"
        case internalError = "internal_error"
        case userDisabled = "user_disabled"
        case idTokenRevoked = "id_token_revoked"
        case firebaseAdminRejected = "firebase_admin_rejected"
        case firebaseAdminUnavailable = "firebase_admin_unavailable"
        case accountConflict = "account_conflict"
        case invalidKakaoIDToken = "invalid_kakao_id_token"
        case stateUnavailable = "state_unavailable"
        case iamRejected = "iam_rejected"
        case iamUnavailable = "iam_unavailable"
        case invalidNaverToken = "invalid_naver_token"
        case naverRejected = "naver_rejected"
        case naverQuotaExceeded = "naver_quota_exceeded"
        case naverUnavailable = "naver_unavailable"
        case invalidLineToken = "invalid_line_token"
        case lineChannelMismatch = "line_channel_mismatch"
        case invalidLineIDToken = "invalid_line_id_token"
        case lineQuotaExceeded = "line_quota_exceeded"
        case lineUnavailable = "line_unavailable"
        case reauthenticationRequired = "reauthentication_required"
    
        public var status: HTTPResponse.Status {
            switch self {
            case .invalidRequest: .badRequest
            case .notFound: .notFound
            case .methodNotAllowed: .methodNotAllowed
            case .payloadTooLarge: .contentTooLarge
            case .missingToken, .invalidKakaoToken, .kakaoAppMismatch, .invalidIDToken, .tokenMismatch, .unauthorized,
                .idTokenRevoked, .invalidKakaoIDToken, .invalidNaverToken, .invalidLineToken, .lineChannelMismatch,
                .invalidLineIDToken, .reauthenticationRequired: .unauthorized
            case .userDisabled: .forbidden
            case .accountConflict: .conflict
            case .rateLimited: .tooManyRequests
            case .kakaoUnavailable, .firebaseRejected, .firebaseUnavailable, .backendRejected, .backendUnavailable,
                .firebaseAdminRejected, .firebaseAdminUnavailable, .iamRejected, .iamUnavailable, .naverRejected,
                .naverUnavailable, .lineUnavailable: .badGateway
            case .kakaoQuotaExceeded, .notReady, .stateUnavailable, .naverQuotaExceeded, .lineQuotaExceeded: .serviceUnavailable
            case .upstreamTimeout: .gatewayTimeout
            case .internalError: .internalServerError
            }
        }
    
        public var title: String {
            switch self {
            case .invalidRequest: "Invalid request"
            case .notFound: "Not found"
            case .methodNotAllowed: "Method not allowed"
            case .payloadTooLarge: "Payload too large"
            case .missingToken: "Missing bearer token"
            case .invalidKakaoToken: "Invalid Kakao token"
            case .kakaoAppMismatch: "Kakao token issued to another app"
            case .invalidIDToken: "Invalid Firebase ID token"
            case .tokenMismatch: "Tokens belong to different users"
            case .unauthorized: "Unauthorized"
            case .rateLimited: "Too many requests"
            case .kakaoUnavailable: "Kakao unavailable"
            case .kakaoQuotaExceeded: "Kakao quota exceeded"
            case .firebaseRejected: "Firebase rejected the request"
            case .firebaseUnavailable: "Firebase unavailable"
            case .backendRejected: "Backend rejected the login"
            case .backendUnavailable: "Backend unavailable"
            case .upstreamTimeout: "Upstream timeout"
            case .notReady: "Not ready"
            case .internalError: "Internal error"
            case .userDisabled: "User disabled"
            case .idTokenRevoked: "ID token revoked"
            case .firebaseAdminRejected: "Firebase Admin API rejected the request"
            case .stateUnavailable: "State store unavailable"
            case .firebaseAdminUnavailable: "Firebase Admin API unavailable"
            case .accountConflict: "Account conflict"
            case .invalidKakaoIDToken: "Invalid Kakao ID token"
            case .iamRejected: "IAM Credentials API rejected the request"
            case .iamUnavailable: "IAM Credentials API unavailable"
            case .invalidNaverToken: "Invalid Naver token"
            case .naverRejected: "Naver rejected the request"
            case .naverQuotaExceeded: "Naver quota exceeded"
            case .naverUnavailable: "Naver unavailable"
            case .invalidLineToken: "Invalid LINE token"
            case .lineChannelMismatch: "LINE token issued to another channel"
            case .invalidLineIDToken: "Invalid LINE ID token"
            case .lineQuotaExceeded: "LINE quota exceeded"
            case .lineUnavailable: "LINE unavailable"
            case .reauthenticationRequired: "Reauthentication required"
            }
        }
    }
}
