/// A configuration file's content as `YAMLReader` reads it: mappings, lists and text, nothing typed yet. Each key's
/// reader turns the text into its own type, so `port: "8080"` and `port: 8080` mean the same.
package indirect enum YAMLValue: Equatable, Sendable {
    /// Empty, `~`, `null`, `Null` or `NULL` unquoted: the key keeps its default.
    case null
    case text(String)
    case list([YAMLValue])
    /// In file order; a key appears once (a repeated key is a reading error).
    case mapping([YAMLEntry])
}

package struct YAMLEntry: Equatable, Sendable {
    package var key: String
    package var value: YAMLValue

    package init(key: String, value: YAMLValue) {
        self.key = key
        self.value = value
    }
}

/// Where and why a file is not YAML we read. The message never quotes the line: it may hold a secret.
package struct YAMLReadingError: Error, Equatable {
    package var line: Int
    package var column: Int
    package var problem: String
}
