@testable import BridgeFeatures
@testable import KakaoBridge
import BridgeSupport
import Foundation
import Synchronization
import Testing

/// The `Date` header (RFC 9110 §5.6.7, IMF-fixdate), as Python's `email.utils.formatdate(usegmt=True)` writes it.
@Suite struct HTTPDateTests {
    @Test(arguments: [
        (Int64(0), "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),  // RFC 9110's own example
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),  // a leap day of a year divisible by 400
        (1_795_528_799, "Tue, 24 Nov 2026 13:59:59 GMT"),
        (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"),  // 2100 is not a leap year
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func formats(_ seconds: Int64, _ expected: String) {
        #expect(HTTPDate.format(seconds) == expected)
    }

    @Test func followsTheClockSecondBySecond() {
        let now = Mutex<Int64>(784_111_777)
        let dates = HTTPDate(clock: UnixClock { now.withLock { $0 } })
        #expect(dates.current() == "Sun, 06 Nov 1994 08:49:37 GMT")
        now.withLock { $0 += 1 }
        #expect(dates.current() == "Sun, 06 Nov 1994 08:49:38 GMT")
    }

    /// The log lines' `time` comes from the same calendar conversion, and reads as Foundation's ISO 8601 with
    /// milliseconds did before it. Quarter seconds, which a `Double` holds exactly: Foundation truncates the binary
    /// fraction, so `.001` can read as `.000` there.
    @Test(arguments: [Int64(0), 784_111_777_250, 951_782_400_750, 1_795_528_799_500, 4_102_444_800_000, -250])
    func logTimeIsFoundationsISO8601(_ milliseconds: Int64) {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1_000)
        let foundation = date.formatted(.iso8601.year().month().day().timeZone(separator: .omitted).time(includingFractionalSeconds: true))
        #expect(CivilTime.iso8601(unixMilliseconds: milliseconds) == foundation)
    }
}
