import BridgeSupport
import CurlHTTP

/// How long an HTTP answer may be cached, from its `Cache-Control` and `Age` headers.
package enum CacheControl {
    /// `max-age` less `Age`, in seconds; `nil` when there is no usable `max-age`.
    package static func freshSeconds(_ response: HTTPResponse) -> Int64? {
        guard let maxAge = maxAge(response.header("cache-control")) else { return nil }
        let age = response.header("age").flatMap { Int64($0.trimmingSpaces()) }.map { max(0, $0) } ?? 0
        return max(0, maxAge - age)
    }

    /// `max-age` from a `Cache-Control` value (`public, max-age=19204, must-revalidate, no-transform`); case-insensitive,
    /// tolerant of spaces and quotes. `nil` when absent or not a non-negative integer.
    package static func maxAge(_ cacheControl: String?) -> Int64? {
        guard let cacheControl else { return nil }
        var result: Int64?
        for directive in cacheControl.split(separator: ",") {
            // Keep empty pieces: a directive such as "=" must parse as an unnamed one, not index past an empty array
            // (found by FuzzGoogleReplies).
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).trimmingSpaces().lowercased()
            guard name == "max-age", parts.count == 2 else { continue }
            var value = String(parts[1]).trimmingSpaces()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if let seconds = Int64(value), seconds >= 0 { result = seconds }
        }
        return result
    }
}
