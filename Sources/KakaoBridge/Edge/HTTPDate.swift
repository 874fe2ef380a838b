import BridgeSupport
import Synchronization

/// The `Date` header of every answer (RFC 9110 §6.6.1: an origin server with a clock sends one), in the IMF-fixdate form
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Formatted at most once a second and shared: every answer of that second reads the
/// same string.
final class HTTPDate: Sendable {
    private let clock: UnixClock
    private let cached: Mutex<(second: Int64, text: String)>

    init(clock: UnixClock = .system) {
        self.clock = clock
        let now = clock.now()
        cached = Mutex((now, Self.format(now)))
    }

    /// The header's value for now.
    func current() -> String {
        let now = clock.now()
        return cached.withLock { cached in
            if cached.second != now { cached = (now, Self.format(now)) }
            return cached.text
        }
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Unix seconds as an IMF-fixdate, by the one calendar conversion of the service (`CivilTime`).
    static func format(_ unixSeconds: Int64) -> String {
        let civil = CivilTime(unixSeconds: unixSeconds)
        let pad = CivilTime.pad
        return "\(days[Int(civil.weekday)]), \(pad(civil.day, 2)) \(months[Int(civil.month - 1)]) \(civil.year) "
            + "\(pad(civil.hour, 2)):\(pad(civil.minute, 2)):\(pad(civil.second, 2)) GMT"
    }
}
