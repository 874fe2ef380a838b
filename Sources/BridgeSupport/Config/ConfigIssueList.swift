/// The problems `ConfigValidation` finds, collected so that every one is reported at once (docs/configuration.md#validation),
/// with the checks every part of it uses. A class: the parts and the per-section helpers append to one list.
package final class ConfigIssueList {
    package private(set) var issues: [ConfigIssue] = []
    /// `upstream.allow_insecure`: plain http:// upstream URLs off loopback are allowed.
    private let allowInsecure: Bool

    package init(allowInsecure: Bool) {
        self.allowInsecure = allowInsecure
    }

    package func add(_ path: String, _ message: String) {
        issues.append(ConfigIssue(path: path, message: message))
    }

    package func check(_ ok: Bool, _ path: String, _ message: @autoclosure () -> String) {
        if !ok { add(path, message()) }
    }

    package func range(_ value: Int, _ bounds: ClosedRange<Int>, _ path: String, _ meaning: String = "") {
        check(bounds.contains(value), path, "must be between \(bounds.lowerBound) and \(bounds.upperBound)\(meaning), got \(value)")
    }

    package func atLeast(_ value: Int, _ minimum: Int, _ path: String, _ meaning: String = "") {
        check(value >= minimum, path, "must be at least \(minimum)\(meaning), got \(value)")
    }

    /// The rule of every upstream URL: https://, or plain http:// only to a loopback host or with
    /// `upstream.allow_insecure`.
    package func url(_ value: String, _ path: String, optional: Bool = false) {
        if optional && value.isEmpty { return }
        // The value itself is not echoed: URLs may carry credentials in their userinfo or query.
        guard ConfigValidation.isHTTPURL(value) else {
            add(path, "must be an http:// or https:// URL with a host")
            return
        }
        check(allowInsecure || ConfigValidation.isSecureOrLoopback(value), path,
              "must be https:// (plain http:// only for a loopback host such as 127.0.0.1 or localhost, or with upstream.allow_insecure: true): on a plain-HTTP path anyone in between can read tokens or forge answers")
    }
}
