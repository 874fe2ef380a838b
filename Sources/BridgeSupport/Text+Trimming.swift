extension String {
    /// Without the spaces and tabs at either end (header values, `Cache-Control` directives).
    package func trimmingSpaces() -> String { String(Substring(self).trimmingSpaces()) }
}

extension Substring {
    /// The same, still a slice: a caller that makes a `String` of the result copies the text once.
    package func trimmingSpaces() -> Substring {
        var slice = self
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return slice
    }
}

extension String {
    /// Without spaces, tabs, CR and LF at either end (a request body that is one token, perhaps with a final newline).
    package func trimmingASCIIWhitespace() -> String {
        var slice = Substring(self)
        let blank: Set<Character> = [" ", "\t", "\r", "\n", "\r\n"]
        while let first = slice.first, blank.contains(first) { slice.removeFirst() }
        while let last = slice.last, blank.contains(last) { slice.removeLast() }
        return String(slice)
    }
}

extension String {
    /// A configured base URL without its one trailing slash, so that a path starting with `/` can follow it: how every
    /// upstream client takes `*_base_url`, with or without the slash.
    package var withoutTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
