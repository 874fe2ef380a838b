/// Where each secret of docs/configuration.md#secrets-in-files came from while the loader applies its sources: a value (in
/// the configuration file or a `BRIDGE_*` variable) or a file named by the secret's `_file` key (`hook.secret_file`).
///
/// Files are read once every source is applied, not as their key is met: a later source may name another file, and the
/// file an earlier one named may not exist where the service runs.
package struct SecretSources {
    /// A secret is a few dozen bytes; a longer file is a wrong path (a log, a device), refused rather than read whole.
    package static let maxFileBytes = 64 * 1024

    /// Secret key path → where its value was given: "the configuration file" or the variable's name.
    private var values: [String: String] = [:]
    /// Secret key path → the file named for it and the `_file` key that named it, as problems should label it.
    private var files: [String: (path: String, label: String, variable: String?)] = [:]
    /// Secrets written in the configuration file itself, in the order met: that file then falls under the mode rule.
    private(set) var inConfigurationFile: [String] = []

    /// A secret given as a value; an empty one is no value (it turns its feature off, as the default does).
    package mutating func value(_ secret: String, _ text: String, variable: String?) {
        guard !text.isEmpty else {
            values[secret] = nil
            return
        }
        values[secret] = variable ?? "the configuration file"
        if variable == nil, !inConfigurationFile.contains(secret) { inConfigurationFile.append(secret) }
    }

    /// A secret's `_file` key; an empty path names no file.
    package mutating func file(_ secret: String, _ path: String, label: String, variable: String?) {
        files[secret] = path.isEmpty ? nil : (path, label, variable)
    }

    /// What reading the named files gave: problems as `label: problem` lines, the secrets that could not be read (their
    /// own rules would only add noise) and, for each secret read, what named its file (for later problems' labels).
    package struct Report {
        package var problems: [String] = []
        package var unreadable: Set<String> = []
        package var namedBy: [String: String] = [:]
    }

    /// Reads every named file into `config`. A secret given both ways is refused: which one was meant is a guess.
    package func read(into config: inout BridgeConfig, keys: [ConfigKey]) -> Report {
        var report = Report()
        for key in keys {
            guard let file = files[key.path] else { continue }
            var problems: [String] = []
            if let source = values[key.path] {
                problems.append("\(key.path): given both as a value (\(source)) and as a file (\(file.label)); give it one way")
            }
            switch Self.read(file.path) {
            case .success(let secret):
                if problems.isEmpty { Self.store(secret, in: key.field, of: &config) }
            case .failure(let refusal):
                problems.append("\(file.label): \(refusal.reason)")
            }
            if problems.isEmpty {
                report.namedBy[key.path] = file.variable ?? "\(key.path)_file"
            } else {
                report.problems += problems
                report.unreadable.insert(key.path)
            }
        }
        return report
    }

    /// A file of a secret that may be a list (`hook.secret` during a rotation) holds one per line (`\n` or `\r\n`); blank
    /// lines are skipped.
    private static func store(_ secret: String, in field: ConfigKey.Field, of config: inout BridgeConfig) {
        switch field {
        case .string(let keyPath):
            config[keyPath: keyPath] = secret
        case .stringList(let keyPath):
            // `\r\n` is one `Character`, a newline like `\n`.
            config[keyPath: keyPath] = secret.split(whereSeparator: \.isNewline).map(String.init)
        default:
            break
        }
    }

    package struct Refusal: Error {
        package let reason: String
    }

    /// The secret in `path`, without one trailing newline (`\n` or `\r\n`, as `echo` and editors leave it); or why it
    /// cannot be used. The reason names the file, never its content.
    package static func read(_ path: String) -> Result<String, Refusal> {
        if let refusal = PrivateFile.refusal(path) { return .failure(Refusal(reason: refusal)) }
        guard let bytes = FileBytes.read(path: path, limit: maxFileBytes) else {
            return .failure(Refusal(reason: "cannot read \(path) (missing, or not readable by the service's user)"))
        }
        guard bytes.count <= maxFileBytes else {
            return .failure(Refusal(reason: "\(path) is larger than \(maxFileBytes / 1024) KiB: not a secret file"))
        }
        var secret = bytes[...]
        if secret.last == UInt8(ascii: "\n") {
            secret = secret.dropLast()
            if secret.last == UInt8(ascii: "\r") { secret = secret.dropLast() }
        }
        guard !secret.isEmpty else { return .failure(Refusal(reason: "\(path) is empty")) }
        guard let text = String(validating: secret, as: UTF8.self) else {
            return .failure(Refusal(reason: "\(path) is not UTF-8 text"))
        }
        return .success(text)
    }
}
