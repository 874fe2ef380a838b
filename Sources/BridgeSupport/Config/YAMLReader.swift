/// Reads the configuration file's YAML: block mappings and lists, one-line `[ ]` and `{ }`, plain, 'single-' and
/// "double-quoted" text, comments. That is every form a configuration file needs. The rest of YAML (anchors and
/// aliases, tags, `|` and `>` blocks, values over several lines, several documents) is refused by line and column,
/// never read in a way the operator did not mean.
///
/// Why not a YAML library: the one at hand, Yams, reads all of YAML, and a file in which an anchor, a tag or a folded
/// block changed a value silently is what this reader exists to refuse (docs/configuration.md#the-yaml-it-reads).
package struct YAMLReader {
    /// One line that holds something: its indentation, and its text without the indentation, comment or trailing blanks.
    package struct Line {
        package var number: Int
        package var indent: Int
        package var text: [Unicode.Scalar]
    }

    /// Deeper than any configuration goes; the limit keeps a hostile file from exhausting the stack.
    package static let maximumDepth = 32

    private var lines: [Line]
    private var index = 0
    private var depth = 0

    /// The document, or nil when the text holds nothing but blanks and comments.
    package static func read(_ text: String) throws(YAMLReadingError) -> YAMLValue? {
        var reader = YAMLReader(lines: try lines(of: text))
        guard let first = reader.lines.first else { return nil }
        let value = try reader.block(indent: first.indent)
        if reader.index < reader.lines.count {
            let line = reader.lines[reader.index]
            throw YAMLReadingError(line: line.number, column: line.indent + 1, problem: "expected the document to end (check the indentation)")
        }
        return value
    }

    // MARK: Lines

    package static func lines(of text: String) throws(YAMLReadingError) -> [Line] {
        var lines: [Line] = []
        var number = 0
        for raw in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var scalars = Array(raw)
            if scalars.last == "\r" { scalars.removeLast() }
            if number == 1, scalars.first == "\u{FEFF}" { scalars.removeFirst() }
            let indent = scalars.prefix { $0 == " " }.count
            let text = stripComment(scalars[indent...])
            guard !text.isEmpty else { continue }
            if text.first == "\t" {
                throw YAMLReadingError(line: number, column: indent + 1, problem: "a tab in the indentation (YAML indents with spaces only)")
            }
            if indent == 0, text.first == "%" {
                throw YAMLReadingError(line: number, column: 1, problem: "directives (%) are not supported")
            }
            if indent == 0, isMarker(text, "---") {
                guard lines.isEmpty, text.count == 3 else {
                    throw YAMLReadingError(line: number, column: 1, problem: "the file holds one document: only a leading --- on a line of its own is allowed")
                }
                continue
            }
            if indent == 0, isMarker(text, "...") {
                throw YAMLReadingError(line: number, column: 1, problem: "document end markers (...) are not supported")
            }
            lines.append(Line(number: number, indent: indent, text: Array(text)))
        }
        return lines
    }

    private static func isMarker(_ text: ArraySlice<Unicode.Scalar>, _ marker: String) -> Bool {
        text.starts(with: marker.unicodeScalars) && (text.count == 3 || text[text.startIndex + 3] == " " || text[text.startIndex + 3] == "\t")
    }

    /// The text before a comment (`#` at the start or after a blank, outside quotes), without trailing blanks. A quote
    /// opens only where a value can start, so `it's` is text; an unclosed quote is left for the value's reader to report.
    private static func stripComment(_ text: ArraySlice<Unicode.Scalar>) -> ArraySlice<Unicode.Scalar> {
        var quote: Unicode.Scalar?
        var previous: Unicode.Scalar?
        var lastNonBlank: Unicode.Scalar?
        var end = text.endIndex
        var position = text.startIndex
        scan: while position < text.endIndex {
            let scalar = text[position]
            if let open = quote {
                if open == "\"", scalar == "\\" {
                    position += 2
                    previous = "x"
                    continue
                }
                if scalar == open {
                    if open == "'", position + 1 < text.endIndex, text[position + 1] == "'" {
                        position += 2
                        continue
                    }
                    quote = nil
                }
            } else if scalar == "#", previous == nil || previous == " " || previous == "\t" {
                end = position
                break scan
            } else if scalar == "\"" || scalar == "'" {
                let afterBlank = previous == nil || previous == " " || previous == "\t"
                switch lastNonBlank {
                case nil: quote = scalar
                case "[", "{", ",": quote = scalar
                case ":", "-", "?": if afterBlank { quote = scalar }
                default: break
                }
            }
            previous = scalar
            if scalar != " " && scalar != "\t" { lastNonBlank = scalar }
            position += 1
        }
        var trimmed = text[text.startIndex..<end]
        while let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
        return trimmed
    }

    // MARK: Blocks

    private mutating func block(indent: Int) throws(YAMLReadingError) -> YAMLValue {
        let line = lines[index]
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw YAMLReadingError(line: line.number, column: line.indent + 1, problem: "nested deeper than \(Self.maximumDepth) levels")
        }
        if Self.isListItem(line.text) { return try list(indent: indent) }
        if try Self.mappingKey(line) != nil { return try mapping(indent: indent) }
        let value = try YAMLInline.value(line.text[...], line: line)
        index += 1
        try refuseContinuation(after: indent)
        return value
    }

    private mutating func mapping(indent: Int) throws(YAMLReadingError) -> YAMLValue {
        var entries: [YAMLEntry] = []
        // A set, not a search of `entries`: a file of many keys must not take quadratic time to read.
        var seen: Set<String> = []
        while let line = try nextLine(at: indent) {
            guard let (key, valueStart) = try Self.mappingKey(line) else {
                if Self.isListItem(line.text) { break }
                throw YAMLReadingError(line: line.number, column: line.indent + 1, problem: "expected `key: value`")
            }
            if !seen.insert(key).inserted {
                throw YAMLReadingError(line: line.number, column: line.indent + 1, problem: "the key \(key) appears twice in one mapping")
            }
            let rest = line.text[valueStart...].drop { $0 == " " || $0 == "\t" }
            index += 1
            let value: YAMLValue
            if !rest.isEmpty {
                value = try YAMLInline.value(rest, line: line)
                try refuseContinuation(after: indent)
            } else if index < lines.count, lines[index].indent > indent {
                value = try block(indent: lines[index].indent)
            } else if index < lines.count, lines[index].indent == indent, Self.isListItem(lines[index].text) {
                // YAML lets a key's list sit at the key's own indentation.
                value = try list(indent: indent)
            } else {
                value = .null
            }
            entries.append(YAMLEntry(key: key, value: value))
        }
        return .mapping(entries)
    }

    private mutating func list(indent: Int) throws(YAMLReadingError) -> YAMLValue {
        var items: [YAMLValue] = []
        while let line = try nextLine(at: indent) {
            guard Self.isListItem(line.text) else { break }
            let offset = 1 + line.text.dropFirst().prefix { $0 == " " || $0 == "\t" }.count
            if offset == line.text.count {
                index += 1
                items.append(index < lines.count && lines[index].indent > indent ? try block(indent: lines[index].indent) : .null)
            } else {
                // The rest of the line is read as a line of its own at its column, as YAML does: `- key: value`, `- - a`.
                lines[index] = Line(number: line.number, indent: line.indent + offset, text: Array(line.text[offset...]))
                items.append(try block(indent: line.indent + offset))
            }
        }
        return .list(items)
    }

    /// The next line of a block at `indent`, nil where the block ends (a line less indented, or none); a line indented
    /// deeper than its block is refused.
    private func nextLine(at indent: Int) throws(YAMLReadingError) -> Line? {
        guard index < lines.count, lines[index].indent >= indent else { return nil }
        let line = lines[index]
        guard line.indent == indent else {
            throw YAMLReadingError(line: line.number, column: line.indent + 1, problem: "unexpected indentation")
        }
        return line
    }

    private func refuseContinuation(after indent: Int) throws(YAMLReadingError) {
        guard index < lines.count, lines[index].indent > indent else { return }
        let line = lines[index]
        throw YAMLReadingError(
            line: line.number, column: line.indent + 1,
            problem: "a value that goes on over several lines is not supported: write it on one line (quoted if it holds `: ` or ` #`)"
        )
    }

    private static func isListItem(_ text: [Unicode.Scalar]) -> Bool {
        text.first == "-" && (text.count == 1 || text[1] == " " || text[1] == "\t")
    }

    /// The key of a `key: value` line and where its value starts, or nil when the line is not one.
    private static func mappingKey(_ line: Line) throws(YAMLReadingError) -> (String, Int)? {
        let text = line.text
        guard let first = text.first else { return nil }
        if first == "?", text.count == 1 || text[1] == " " {
            throw YAMLReadingError(line: line.number, column: line.indent + 1, problem: "complex keys (?) are not supported")
        }
        if first == "\"" || first == "'" {
            var cursor = YAMLInline(text: text[...], line: line)
            let key = try cursor.quoted()
            cursor.skipBlanks()
            guard cursor.peek == ":", cursor.isBlankOrEnd(at: cursor.position + 1) else { return nil }
            return (key, cursor.position + 1)
        }
        if first == "[" || first == "{" || first == "-" && isListItem(text) { return nil }
        for position in text.indices where text[position] == ":" && (position + 1 == text.count || text[position + 1] == " " || text[position + 1] == "\t") {
            var key = text[..<position]
            while let last = key.last, last == " " || last == "\t" { key.removeLast() }
            guard !key.isEmpty else {
                throw YAMLReadingError(line: line.number, column: line.indent + 1, problem: "a key is missing before `:`")
            }
            return (String(String.UnicodeScalarView(key)), position + 1)
        }
        return nil
    }
}
