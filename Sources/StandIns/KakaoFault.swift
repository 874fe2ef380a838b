/// What the Kakao stand-in can be told to do instead of answering normally.
public enum KakaoFault: Sendable, Equatable {
    /// Kakao's error shape `{"msg": …, "code": code}` with this HTTP status (-1/500, -7/400, -9798/400, -10/429, …).
    case errorCode(Int, httpStatus: Int)
    /// This status and body, sent as JSON.
    case httpStatus(Int, body: String)
    /// Every answer waits this long first.
    case delay(Duration)
    /// A 200 with this body and content type (unparsable, HTML, …).
    case rawBody(String, contentType: String)
    /// `/v2/user/me` answers with another user's id.
    case mismatchedUserMe
}

/// Which Kakao endpoint a fault applies to.
public enum KakaoEndpoint: Sendable, Equatable {
    case tokenInfo
    case userMe
    case both
}

extension KakaoFault {
    /// Kakao's own wording for the codes the bridge distinguishes.
    static func message(for code: Int) -> String {
        switch code {
        case -1: "internal error"
        case -2: "invalid argument"
        case -7: "service check"
        case -10: "exceeded the allowed call limit"
        case -401: "this access token does not exist"
        case -9798: "service under maintenance"
        default: "error"
        }
    }
}
