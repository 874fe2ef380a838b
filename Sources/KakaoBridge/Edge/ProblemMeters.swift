import BridgeSupport
import Metrics

/// `kakao_bridge_problems_total{route,code}`: every problem answered (docs/operations.md#scraping), by route template and
/// code. Bounded: the routes are the route table's templates, and the codes are `Problem`'s closed set of docs/errors.md
/// (a code comes only from `Problem.code.rawValue`, never from text a client or an upstream sent). Each counter is made once,
/// as `RequestMeters` does.
final class ProblemMeters: Sendable {
    private struct Key: Hashable, Sendable {
        var route: String
        var code: String
    }

    private let made = FirstUseTable<Key, Counter>()

    func counter(route: String, code: String) -> Counter {
        made.value(for: Key(route: route, code: code)) {
            Counter(label: MetricName.problems.rawValue, dimensions: [("route", route), ("code", code)])
        }
    }
}
