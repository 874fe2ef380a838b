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

    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Unix seconds as an IMF-fixdate, by the civil-from-days algorithm (proleptic Gregorian calendar, no time zones).
    static func format(_ unixSeconds: Int64) -> String {
        let dayNumber = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondOfDay = unixSeconds - dayNumber * 86_400
        let weekday = days[Int(((dayNumber % 7) + 7) % 7)]
        // Howard Hinnant's days_from_civil, inverted: eras of 400 years, years starting in March.
        let shifted = dayNumber + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekday), \(two(day)) \(months[Int(month - 1)]) \(year) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
