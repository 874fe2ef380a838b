import BridgeSupport
import Metrics
import Synchronization

/// `kakao_bridge_problems_total{route,code}`: every problem answered (docs/operations.md#scraping), by route template and
/// code. Bounded: the routes are the route table's templates, and the codes are `Problem`'s closed set of docs/errors.md
/// (a code comes only from `Problem.code.rawValue`, never from text a client or an upstream sent). Each counter is made once,
/// as `RequestMeters` does.
final class ProblemMeters: Sendable {
    private struct Key: Hashable {
        var route: String
        var code: String
    }

    private let made = Mutex<[Key: Counter]>([:])

    func counter(route: String, code: String) -> Counter {
        let key = Key(route: route, code: code)
        if let known = made.withLock({ $0[key] }) { return known }
        let fresh = Counter(label: MetricName.problems.rawValue, dimensions: [("route", route), ("code", code)])
        return made.withLock { table in
            if let raced = table[key] { return raced }
            table[key] = fresh
            return fresh
        }
    }
}
