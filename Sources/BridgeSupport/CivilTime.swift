/// A moment as a UTC calendar shows it (proleptic Gregorian, no time zones): the one conversion from Unix time the
/// service makes, for the `Date` header (`HTTPDate`) and the log lines' `time`.
package struct CivilTime: Sendable, Equatable {
    package let year: Int64
    /// 1 to 12.
    package let month: Int64
    package let day: Int64
    /// 0 (Sunday) to 6.
    package let weekday: Int64
    package let hour: Int64
    package let minute: Int64
    package let second: Int64

    /// By the civil-from-days algorithm: Howard Hinnant's days_from_civil, inverted (eras of 400 years, years starting
    /// in March).
    package init(unixSeconds: Int64) {
        let dayNumber = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondOfDay = unixSeconds - dayNumber * 86_400
        weekday = ((dayNumber % 7) + 11) % 7  // 1970-01-01 was a Thursday
        let shifted = dayNumber + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        hour = secondOfDay / 3_600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    /// RFC 3339 in UTC with milliseconds, `2026-11-27T07:32:23.123Z`: the log lines' `time`.
    package static func iso8601(unixMilliseconds: Int64) -> String {
        let seconds = unixMilliseconds >= 0 ? unixMilliseconds / 1_000 : (unixMilliseconds - 999) / 1_000
        let civil = CivilTime(unixSeconds: seconds)
        let millis = unixMilliseconds - seconds * 1_000
        return "\(civil.year)-\(pad(civil.month))-\(pad(civil.day))T\(pad(civil.hour)):\(pad(civil.minute)):\(pad(civil.second))."
            + pad(millis, width: 3) + "Z"
    }

    /// Zero-padded decimal digits.
    package static func pad(_ value: Int64, width: Int = 2) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
