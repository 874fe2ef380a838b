extension String {
    /// Without the spaces and tabs at either end (header values, `Cache-Control` directives).
    package func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
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
