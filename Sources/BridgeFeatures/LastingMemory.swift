import BridgeSupport
import Upstreams

/// What the features remember that outlives a reload: a webhook that arrived before a SIGHUP still counts after it,
/// nonces issued before it stay good and used ones stay used, and a link under way still holds its account. One per
/// process; the shared state store (docs/operations.md) makes it fleet-wide.
public struct LastingMemory: Sendable {
    public var unlinkedUsers: UnlinkedKakaoUsers
    public var kakaoNonces: KakaoNonceMemory
    public var linkLocks: LinkLocks

    public init(clock: UnixClock) {
        self.unlinkedUsers = UnlinkedKakaoUsers(clock: clock)
        self.kakaoNonces = KakaoNonceMemory(clock: clock)
        self.linkLocks = LinkLocks()
    }
}
