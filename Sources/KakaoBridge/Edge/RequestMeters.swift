import Metrics
import Synchronization

/// The request counter and latency timer of each (route, method, status), made once and then reused: building a
/// `Counter` or `Timer` looks it up in the Prometheus registry under a lock, which is wasted work on every request.
/// Bounded because each label is: route templates, a fixed set of methods, three-digit status codes.
final class RequestMeters: Sendable {
    struct Key: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    struct Meters: Sendable {
        let requests: Counter
        let duration: Timer
    }

    private let made = Mutex<[Key: Meters]>([:])

    func meters(route: String, method: String, status: Int) -> Meters {
        let key = Key(route: route, method: method, status: status)
        if let known = made.withLock({ $0[key] }) { return known }
        let dimensions = [("route", route), ("method", method), ("status", String(status))]
        let fresh = Meters(
            requests: Counter(label: "kakao_bridge_requests_total", dimensions: dimensions),
            duration: Timer(label: "kakao_bridge_request_duration_seconds", dimensions: dimensions)
        )
        return made.withLock { table in
            if let raced = table[key] { return raced }
            table[key] = fresh
            return fresh
        }
    }
}
