import BridgeSupport

extension Task where Failure == Never {
    /// The task's value if it ends within `deadline`; nil if it is still running (it goes on, unawaited). The webhooks
    /// answer Kakao in time whatever their steps do.
    func value(orNilAfter deadline: Duration) async -> Success? {
        try? await withDeadline(deadline) { await self.value }
    }
}
