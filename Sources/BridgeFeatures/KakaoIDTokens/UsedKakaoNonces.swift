import BridgeSupport
import StateStore
import Upstreams

/// The nonces already used (docs/api.md#get-v1kakaononce), kept in the state store so that a nonce used at one instance
/// is refused at every other, and after a restart with a durable store. Remembered until it expires.
struct UsedKakaoNonces: Sendable {
    let store: any StateStore
    let health: StoreHealth

    /// Records the nonce's use: `.first` exactly once per nonce while it is unexpired, across the fleet.
    func use(_ ticket: KakaoNonces.Ticket) async throws(Problem) -> NonceUse {
        try health.require()
        do {
            return try await health.call(store, "use nonce", within: SharedState.storeLimit) { store throws(StateStoreError) in
                try await store.useNonce(id: ticket.id.bytes, expiresAt: ticket.expiresAt)
            }
        } catch {
            throw error.problem
        }
    }
}
