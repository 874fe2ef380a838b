import BridgeSupport
import Synchronization

/// Per-client token buckets: a client may spend its whole per-minute budget at once, and earns it back evenly over the
/// minute. Memory is bounded (`ExpiringTable`): a bucket counts until it has refilled completely (forgetting it then
/// changes nothing), and past `maxClients` the least recently seen client goes first, since every take puts its
/// bucket back at the end of the table's order.
final class RateLimiter: Sendable {
    enum Decision: Equatable {
        case allowed
        case limited(retryAfterSeconds: Int)
    }

    private let buckets: Mutex<ExpiringTable<Bucket>>
    let maxClients: Int

    init(maxClients: Int = 100_000) {
        self.maxClients = max(1, maxClients)
        self.buckets = Mutex(ExpiringTable(maxEntries: maxClients))
    }

    func take(client: String, perMinute: Int, now: ContinuousClock.Instant = .now) -> Decision {
        guard perMinute > 0 else { return .allowed }
        let capacity = Double(perMinute)
        let perSecond = capacity / 60
        return buckets.withLock { buckets in
            var tokens = capacity
            if let bucket = buckets.entry(for: client, now: now) {
                tokens = min(capacity, bucket.tokens + Self.seconds(now - bucket.updated) * perSecond)
            }
            let decision: Decision
            if tokens >= 1 {
                tokens -= 1
                decision = .allowed
            } else {
                decision = .limited(retryAfterSeconds: max(1, Int(((1 - tokens) / perSecond).rounded(.up))))
            }
            let full = now.advanced(by: .milliseconds(Int64(((capacity - tokens) / perSecond * 1000).rounded(.up))))
            buckets.insert(Bucket(key: client, tokens: tokens, updated: now, expiresAt: full), now: now)
            return decision
        }
    }

    var trackedClients: Int { buckets.withLock { $0.count } }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// One client's bucket as of its last take; it stops counting once it would have refilled completely.
final class Bucket: ExpiringEntry {
    let key: String
    let tokens: Double
    let updated: ContinuousClock.Instant
    let expiresAt: ContinuousClock.Instant

    init(key: String, tokens: Double, updated: ContinuousClock.Instant, expiresAt: ContinuousClock.Instant) {
        self.key = key
        self.tokens = tokens
        self.updated = updated
        self.expiresAt = expiresAt
    }
}
