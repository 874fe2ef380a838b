import Synchronization

/// Open connections of one listener: in all (`server.max_connections`) and per client address
/// (`server.max_connections_per_client`, docs/configuration.md#keys). Without the second, one address opening
/// `max_connections` idle sockets gave every other client a 503 until they closed.
final class ConnectionCount: Sendable {
    let limit: Int
    let perClientLimit: Int
    private let open = Atomic<Int>(0)
    /// Only addresses with a connection open are here; an entry goes when its last connection closes.
    private let byClient = Mutex<[String: Int]>([:])
    /// Behind a proxy every connection comes from the proxy: its addresses (`server.trusted_proxies`, read at each
    /// connection so that a reload applies) are not counted per client.
    private let isExempt: @Sendable (String) -> Bool

    /// `perClientLimit` 0: a quarter of `limit` (at least 1). A quarter, not a fixed number, so that lowering
    /// `server.max_connections` keeps one address from taking all of them; four addresses can still fill the listener,
    /// but idle ones are closed after `server.first_request_timeout_seconds`.
    init(limit: Int, perClientLimit: Int = 0, isExempt: @escaping @Sendable (String) -> Bool = { _ in false }) {
        self.limit = max(1, limit)
        self.perClientLimit = perClientLimit > 0 ? perClientLimit : max(1, self.limit / 4)
        self.isExempt = isExempt
    }

    /// `false` when the connection is one too many (it is counted either way, and uncounted by `leave`).
    func enter() -> Bool { open.add(1, ordering: .relaxed).newValue <= limit }
    func leave() { open.subtract(1, ordering: .relaxed) }
    var current: Int { open.load(ordering: .relaxed) }

    /// Counts a connection from `client`; returns the key it was counted under, for `leave(client:)`, or `nil` when it
    /// is not counted (no address, or a trusted proxy). The key is the rate limit's (`ClientRateLimit.clientKey`): an
    /// IPv6 client is its /64, since one host usually holds all of it and could open connections from each address.
    func enter(client: String?) -> String? {
        guard let client, !isExempt(client) else { return nil }
        let key = ClientRateLimit.clientKey(client)
        byClient.withLock { $0[key, default: 0] += 1 }
        return key
    }

    func isOverLimit(client: String) -> Bool { byClient.withLock { $0[client, default: 0] } > perClientLimit }

    func leave(client: String) {
        byClient.withLock { counts in
            guard let count = counts[client] else { return }
            counts[client] = count > 1 ? count - 1 : nil
        }
    }

    func current(client: String) -> Int { byClient.withLock { $0[client, default: 0] } }
}
