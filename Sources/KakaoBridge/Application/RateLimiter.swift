import Synchronization

/// Per-client token buckets: a client may spend its whole per-minute budget at once, and earns it back evenly over the
/// minute. Memory is bounded: past `maxClients`, buckets that have refilled completely are dropped first (forgetting
/// them changes nothing), then the least recently seen half.
final class RateLimiter: Sendable {
    enum Decision: Equatable {
        case allowed
        case limited(retryAfterSeconds: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = Mutex<[String: Bucket]>([:])
    let maxClients: Int

    init(maxClients: Int = 100_000) { self.maxClients = max(1, maxClients) }

    func take(client: String, perMinute: Int, now: ContinuousClock.Instant = .now) -> Decision {
        guard perMinute > 0 else { return .allowed }
        let capacity = Double(perMinute)
        let perSecond = capacity / 60
        return buckets.withLock { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + Self.seconds(now - bucket.updated) * perSecond)
            bucket.updated = now
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                decision = .allowed
            } else {
                decision = .limited(retryAfterSeconds: max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))))
            }
            if buckets[client] == nil, buckets.count >= maxClients {
                Self.evict(&buckets, capacity: capacity, perSecond: perSecond, now: now, keep: maxClients / 2)
            }
            buckets[client] = bucket
            return decision
        }
    }

    var trackedClients: Int { buckets.withLock { $0.count } }

    private static func evict(
        _ buckets: inout [String: Bucket], capacity: Double, perSecond: Double, now: ContinuousClock.Instant, keep: Int
    ) {
        buckets = buckets.filter { $0.value.tokens + seconds(now - $0.value.updated) * perSecond < capacity }
        guard buckets.count > keep else { return }
        let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(keep)
        buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
