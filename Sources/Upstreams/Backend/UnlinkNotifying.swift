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
}

/// The backend's unlink URL (`backend.unlink_url`). The real one is `BackendNoticeClient`; tests pass fakes. A 2xx answer
/// is success; anything else is a `backend_*` or `upstream_timeout` problem.
public protocol UnlinkNotifying: Sendable {
    func notify(_ notice: UnlinkNotice, context: CallContext) async throws(Problem)
}
