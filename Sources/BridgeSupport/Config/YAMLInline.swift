/// A value written on one line: plain text, quoted text, or a one-line `[ ]` list or `{ }` mapping (see `YAMLReader`).
package struct YAMLInline {
    package let text: ArraySlice<Unicode.Scalar>
    package let line: YAMLReader.Line
    package var position: Int
    private var depth = 0

    package init(text: ArraySlice<Unicode.Scalar>, line: YAMLReader.Line) {
        self.text = text
        self.line = line
        self.position = text.startIndex
    }

    /// The whole of `text` as one value; anything after it is an error.
    package static func value(_ text: ArraySlice<Unicode.Scalar>, line: YAMLReader.Line) throws(YAMLReadingError) -> YAMLValue {
        var cursor = YAMLInline(text: text, line: line)
        let value = try cursor.value(inFlow: false)
        cursor.skipBlanks()
        guard cursor.peek == nil else { throw cursor.error("unexpected text after the value (quote the value if it is one)") }
        return value
    }

    package var peek: Unicode.Scalar? { position < text.endIndex ? text[position] : nil }

    package func isBlankOrEnd(at index: Int) -> Bool {
        index >= text.endIndex || text[index] == " " || text[index] == "\t"
    }

    package mutating func skipBlanks() {
        while let scalar = peek, scalar == " " || scalar == "\t" { position += 1 }
    }

    package func error(_ problem: String) -> YAMLReadingError {
        YAMLReadingError(line: line.number, column: line.indent + position + 1, problem: problem)
    }

    // MARK: Values

    private mutating func value(inFlow: Bool) throws(YAMLReadingError) -> YAMLValue {
        guard let first = peek else { return .null }
        if first == "-" || first == "?" || first == ":", isBlankOrEnd(at: position + 1) {
            throw error(first == "-" ? "a list cannot start on its key's line: put each item on a line of its own" : "unexpected \(first)")
        }
        switch first {
        case "[": return try flowList()
        case "{": return try flowMapping()
        case "\"", "'":
            // Quoted text is text, even empty: `uid_prefix: ""` is the operator's empty value, for the key to judge.
            return .text(try quoted())
        case "&", "*": throw error("anchors (&) and aliases (*) are not supported")
        case "!": throw error("tags (!) are not supported")
        case "|", ">": throw error("block values (| and >) are not supported: write the value on one line, quoted")
        case "%", "@", "`": throw error("a value cannot start with \(first); quote it")
        case "]", "}", ",": throw error(inFlow ? "a value is missing" : "a value cannot start with \(first); quote it")
        default:
            return Self.resolve(try plain(inFlow: inFlow))
        }
    }

    /// Plain text ends at the line's end, or in `[ ]` and `{ }` at `,`, a bracket, or a `:` that separates a key.
    private mutating func plain(inFlow: Bool) throws(YAMLReadingError) -> String {
        let start = position
        while let scalar = peek {
            if scalar == ":", isBlankOrEnd(at: position + 1) || inFlow && position + 1 < text.endIndex && ",[]{}".unicodeScalars.contains(text[position + 1]) {
                if inFlow { break }
                throw error("a value holds `: `; quote it")
            }
            if inFlow, ",[]{}".unicodeScalars.contains(scalar) { break }
            position += 1
        }
        var slice = text[start..<position]
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return String(String.UnicodeScalarView(slice))
    }

    private static func resolve(_ plain: String) -> YAMLValue {
        switch plain {
        case "", "~", "null", "Null", "NULL": .null
        default: .text(plain)
        }
    }

    /// 'single-quoted' ('' is a quote) or "double-quoted" (with YAML's escapes); it must close on the same line.
    package mutating func quoted() throws(YAMLReadingError) -> String {
        let open = text[position]
        let start = position
        position += 1
        var out = String.UnicodeScalarView()
        while let scalar = peek {
            position += 1
            if scalar == open {
                guard open == "'", peek == "'" else { return String(out) }
                position += 1
                out.append("'")
            } else if open == "\"", scalar == "\\" {
                out.append(try escape())
            } else {
                out.append(scalar)
            }
        }
        position = start
        throw error("a quoted value must close on the same line")
    }

    private mutating func escape() throws(YAMLReadingError) -> Unicode.Scalar {
        guard let code = peek else { throw error("a quoted value must close on the same line") }
        position += 1
        switch code {
        case "0": return "\0"
        case "a": return "\u{07}"
        case "b": return "\u{08}"
        case "t", "\t": return "\t"
        case "n": return "\n"
        case "v": return "\u{0B}"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "e": return "\u{1B}"
        case " ", "\"", "/", "\\": return code
        case "N": return "\u{85}"
        case "_": return "\u{A0}"
        case "L": return "\u{2028}"
        case "P": return "\u{2029}"
        case "x": return try hexScalar(digits: 2)
        case "u": return try hexScalar(digits: 4)
        case "U": return try hexScalar(digits: 8)
        default:
            position -= 2
            throw error("unknown escape \\\(code) in a quoted value")
        }
    }

    private mutating func hexScalar(digits: Int) throws(YAMLReadingError) -> Unicode.Scalar {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let scalar = peek, let digit = Self.hexDigit(scalar) else {
                throw error("an escape needs \(digits) hexadecimal digits")
            }
            value = value << 4 | digit
            position += 1
        }
        guard let scalar = Unicode.Scalar(value) else { throw error("the escape is not a Unicode character") }
        return scalar
    }

    private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 48
        case "a"..."f": scalar.value - 87
        case "A"..."F": scalar.value - 55
        default: nil
        }
    }

    // MARK: One-line lists and mappings

    private mutating func flowList() throws(YAMLReadingError) -> YAMLValue {
        try enterFlow()
        defer { depth -= 1 }
        var items: [YAMLValue] = []
        while true {
            skipBlanks()
            if peek == "]" {
                position += 1
                return .list(items)
            }
            items.append(try value(inFlow: true))
            skipBlanks()
            if peek == ":" { throw error("`key: value` inside [ ] is not supported") }
            try endOfFlowEntry(closing: "]")
        }
    }

    private mutating func flowMapping() throws(YAMLReadingError) -> YAMLValue {
        try enterFlow()
        defer { depth -= 1 }
        var entries: [YAMLEntry] = []
        // A set, not a search of `entries`: a file of many keys must not take quadratic time to read.
        var seen: Set<String> = []
        while true {
            skipBlanks()
            if peek == "}" {
                position += 1
                return .mapping(entries)
            }
            let keyPosition = position
            guard case .text(let key) = try value(inFlow: true) else {
                position = keyPosition
                throw error("a key must be text")
            }
            if !seen.insert(key).inserted {
                position = keyPosition
                throw error("the key \(key) appears twice in one mapping")
            }
            skipBlanks()
            var entryValue = YAMLValue.null
            if peek == ":" {
                position += 1
                skipBlanks()
                if peek != "," && peek != "}" { entryValue = try value(inFlow: true) }
            }
            entries.append(YAMLEntry(key: key, value: entryValue))
            skipBlanks()
            try endOfFlowEntry(closing: "}")
        }
    }

    private mutating func enterFlow() throws(YAMLReadingError) {
        depth += 1
        guard depth <= YAMLReader.maximumDepth else { throw error("nested deeper than \(YAMLReader.maximumDepth) levels") }
        position += 1
    }

    /// After an entry: a comma (a trailing one is allowed), or the closing bracket, which the loop consumes.
    private mutating func endOfFlowEntry(closing: Unicode.Scalar) throws(YAMLReadingError) {
        switch peek {
        case ",": position += 1
        case closing: break
        case nil: throw error("\(closing == "]" ? "[" : "{") must close on the same line")
        default: throw error("expected , or \(closing)")
        }
    }
}
