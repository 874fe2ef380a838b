/// A configuration file's content as `YAMLReader` reads it: mappings, lists and text, nothing typed yet. Each key's
/// reader turns the text into its own type, so `port: "8080"` and `port: 8080` mean the same.
indirect enum YAMLValue: Equatable, Sendable {
    /// Empty, `~`, `null`, `Null` or `NULL` unquoted: the key keeps its default.
    case null
    case text(String)
    case list([YAMLValue])
    /// In file order; a key appears once (a repeated key is a reading error).
    case mapping([YAMLEntry])
}

struct YAMLEntry: Equatable, Sendable {
    var key: String
    var value: YAMLValue
}

/// Where and why a file is not YAML we read. The message never quotes the line: it may hold a secret.
struct YAMLReadingError: Error, Equatable {
    var line: Int
    var column: Int
    var problem: String
}
