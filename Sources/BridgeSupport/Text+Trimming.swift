extension String {
    /// Without the spaces and tabs at either end (header values, `Cache-Control` directives).
    package func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return String(slice)
    }
}
