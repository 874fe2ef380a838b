/// `/metrics` as text, read the way the tests read it.
package enum MetricsText {
    /// The value of one series of `/metrics`, or 0 when it is not there yet.
    package static func value(of series: String, in text: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? 0
        }
        return 0
    }
}
