import BridgeSupport

/// What the backend is told when a Kakao user unlinks the app (docs/api.md#kakaos-unlink-webhook).
public struct UnlinkNotice: Sendable, Equatable {
    /// The Firebase user the service signed them in as; `nil` when there was none (the backend may hold data anyway).
    public var uid: String?
    public var kakaoID: Int64
    /// Kakao's `referrer_type` as it came (`UNLINK_FROM_APPS`, `ACCOUNT_DELETE`, …); `nil` when Kakao sent none.
    public var referrerType: String?
    /// Another provider's person (Naver's unlink callback): its name and its id of them; `kakaoID` is then unused.
    public var provider: Provider?
    public var providerID: String?
    /// What happened: `unlinked` (the person left at the provider) or `deleted` (their account was deleted through the
    /// service, docs/api.md#deleting-an-account).
    public var event: Event = .unlinked

    public enum Event: String, Sendable, Equatable {
        case unlinked
        case deleted
    }

    public init(uid: String?, kakaoID: Int64, referrerType: String?) {
        self.uid = uid
        self.kakaoID = kakaoID
        self.referrerType = referrerType
    }

    /// docs/api.md#navers-unlink-callback: `{"event": "unlinked", "uid", "provider", "provider_id"}`.
    public init(uid: String?, provider: Provider, providerID: String) {
        self.init(uid: uid, kakaoID: 0, referrerType: nil)
        self.provider = provider
        self.providerID = providerID
    }

    /// docs/api.md#deleting-an-account: `{"event": "deleted", "uid", "provider", "provider_id"}`, every provider
    /// (Kakao's `provider_id` is the Kakao id as text).
    public static func deleted(uid: String, provider: Provider, providerID: String) -> UnlinkNotice {
        var notice = UnlinkNotice(uid: uid, provider: provider, providerID: providerID)
        notice.event = .deleted
        return notice
    }
}

/// The backend's unlink URL (`backend.unlink_url`). The real one is `BackendNoticeClient`; tests pass fakes. A 2xx answer
/// is success; anything else is a `backend_*` or `upstream_timeout` problem.
public protocol UnlinkNotifying: Sendable {
    func notify(_ notice: UnlinkNotice, context: CallContext) async throws(Problem)
}
