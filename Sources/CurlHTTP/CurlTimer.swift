/// The one timer the multi_socket API asks for: when `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)` is due next,
/// and how long the curl thread may sleep in the meantime.
///
/// Curl thread only (`CurlThreadDriver` keeps it); pure, so the tests set their own clock readings.
struct CurlTimer {
    /// Caps how long a lost wakeup can delay a job; curl's own timer shortens the wait further.
    static let maxWaitMilliseconds: Int32 = 100

    private(set) var deadline: ContinuousClock.Instant?

    /// Curl's timer callback: -1 removes the timer; 0 asks for a call as soon as possible.
    mutating func set(milliseconds: Int, now: @autoclosure () -> ContinuousClock.Instant = .now) {
        deadline = milliseconds < 0 ? nil : now() + .milliseconds(milliseconds)
    }

    /// `true`, once, when the deadline has passed: the caller then owes curl its timeout call.
    mutating func fire(now: @autoclosure () -> ContinuousClock.Instant = .now) -> Bool {
        guard let deadline, deadline <= now() else { return false }
        self.deadline = nil
        return true
    }

    /// How long the loop may sleep: until the deadline, at most `maxWaitMilliseconds`, rounded up so it never wakes early.
    func waitMilliseconds(now: @autoclosure () -> ContinuousClock.Instant = .now) -> Int32 {
        guard let deadline else { return Self.maxWaitMilliseconds }
        let limit = Self.maxWaitMilliseconds
        let (seconds, attoseconds) = (deadline - now()).components
        guard seconds >= 0, seconds < Int64(limit) else { return seconds < 0 ? 0 : limit }
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(max(0, min(Int64(limit), millis)))
    }
}
