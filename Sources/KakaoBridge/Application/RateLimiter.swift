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
        // Past that, forget the clients not seen for longest, without sorting the table under the lock: one pass picks a
        // random sample of last-seen times (reservoir), the sample's quantile that would keep `keep` becomes the cut-off,
        // and one more pass drops what is older.
        var sample: [ContinuousClock.Instant] = []
        sample.reserveCapacity(Self.sampleSize)
        var generator = SystemRandomNumberGenerator()
        for (seen, bucket) in buckets.values.enumerated() {
            if sample.count < Self.sampleSize {
                sample.append(bucket.updated)
            } else {
                let slot = Int.random(in: 0...seen, using: &generator)
                if slot < Self.sampleSize { sample[slot] = bucket.updated }
            }
        }
        sample.sort(by: >)
        let keptShare = Double(keep) / Double(buckets.count)
        let cutoff = sample[min(sample.count - 1, Int(Double(sample.count) * keptShare))]
        buckets = buckets.filter { $0.value.updated > cutoff }
    }

    /// Last-seen times sampled to find the eviction cut-off; the sort is of this many, never of the table.
    static let sampleSize = 255

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
