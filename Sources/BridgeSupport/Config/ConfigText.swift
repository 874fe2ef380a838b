/// Small text helpers for configuration parsing, kept out of `String`'s namespace so they cannot clash with others.
package enum ConfigText {
    package static func trimmed(_ text: some StringProtocol) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let start = text.firstIndex(where: { !isSpace($0) }), let end = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[start...end])
    }

    /// Splits on a multi-character separator (every part kept, empty ones too).
    package static func split(_ text: String, on separator: String) -> [Substring] {
        var result: [Substring] = []
        var rest = text[...]
        while let range = rest.firstRange(of: separator) {
            result.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        result.append(rest)
        return result
    }
}
