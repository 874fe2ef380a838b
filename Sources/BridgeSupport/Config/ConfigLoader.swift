import FoundationEssentials

/// Turns the YAML file and `BRIDGE_*` variables into a `BridgeConfig` (docs/configuration.md#sources-and-precedence), or refuses with every problem.
public enum ConfigLoader {
    /// Variables that start with `BRIDGE_` but are not keys; everything else with that prefix is reported as a typo.
    package static let nonKeyVariables: Set<String> = ["BRIDGE_CONFIG"]
    /// The variable every Firebase Admin SDK reads; the service honours it the same way (docs/configuration.md#keys),
    /// below `BRIDGE_FIREBASE_EMULATOR_HOST`, which names the key itself.
    public static let emulatorHostVariable = "FIREBASE_AUTH_EMULATOR_HOST"
    /// Where Google's auth libraries find the metadata server (`host` or `host:port`); the service honours it the same
    /// way, below `firebase.metadata_url` (docs/configuration.md#keyless-signing). `GCE_METADATA_ROOT` is its older name,
    /// still read by google-auth when the newer one is unset.
    public static let metadataHostVariables = ["GCE_METADATA_HOST", "GCE_METADATA_ROOT"]

    /// Reads the YAML file (path nil or file missing → only if `requireFile` false: start from defaults), applies
    /// BRIDGE_* overrides, validates.
    /// `scope`: the keys read and checked (`ConfigScope`); the others are still known, so a typo is still refused.
    public static func load(
        path: String?,
        environment: [String: String],
        requireFile: Bool = true,
        scope: ConfigScope = .service
    ) throws(ConfigError) -> BridgeConfig {
        guard let path else {
            if requireFile { throw ConfigError(problems: ["no configuration file given (use --config PATH)"]) }
            return try parse(yaml: "", environment: environment, exposedFile: nil, scope: scope)
        }
        guard FileManager.default.fileExists(atPath: path) else {
            if requireFile { throw ConfigError(problems: ["configuration file \(path): not found"]) }
            return try parse(yaml: "", environment: environment, exposedFile: nil, scope: scope)
        }
        let yaml: String
        do {
            yaml = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
        } catch {
            let reason = FileManager.default.isReadableFile(atPath: path) ? "not valid UTF-8 text" : "not readable"
            throw ConfigError(problems: ["configuration file \(path): \(reason)"])
        }
        let exposed = PrivateFile.exposedMode(path).map { (path: path, mode: $0) }
        return try parse(yaml: yaml, environment: environment, exposedFile: exposed, scope: scope)
    }

    public static func parse(yaml: String, environment: [String: String]) throws(ConfigError) -> BridgeConfig {
        try parse(yaml: yaml, environment: environment, exposedFile: nil)
    }

    /// `exposedFile`: the configuration file and its mode when other users may read it; a secret written in it is then
    /// refused (docs/configuration.md#secrets-in-files).
    package static func parse(
        yaml: String, environment: [String: String], exposedFile: (path: String, mode: Int)?, scope: ConfigScope = .service
    ) throws(ConfigError) -> BridgeConfig {
        var reader = Reader(scope: scope)
        reader.readYAML(yaml)
        if reader.yamlUnreadable { throw ConfigError(problems: reader.problems) }
        if let exposedFile { reader.refuseSecretsIn(exposedFile) }
        reader.readEnvironment(environment)
        reader.readSecretFiles()
        reader.validate()
        if !reader.problems.isEmpty { throw ConfigError(problems: reader.problems) }
        return reader.config
    }

    /// Every rule of docs/configuration.md#validation that a typed configuration can break, as `key: problem` lines; empty means valid.
    public static func validate(_ config: BridgeConfig) -> [String] {
        ConfigValidation.issues(in: config).map { "\($0.path): \($0.message)" }
    }
}

/// Accumulates the configuration and its problems while the sources are applied in order: defaults, YAML, environment.
private struct Reader {
    package let scope: ConfigScope
    package var config = BridgeConfig()
    package var problems: [String] = []
    package var yamlUnreadable = false
    package let keys = ConfigKey.all
    /// Keys whose value could not be read: validating their default would only add noise.
    package var unreadable: Set<String> = []
    /// Key path → the variable that set it (or, for a secret, the `_file` key that named its file), so problems point at
    /// what the operator must fix.
    package var setByEnvironment: [String: String] = [:]
    package var secrets = SecretSources()
    /// The variable `firebase.metadataHost` came from, for its problem's label.
    package var metadataHostVariable = ConfigLoader.metadataHostVariables[0]

    package mutating func readYAML(_ yaml: String) {
        let root: YAMLValue?
        do {
            root = try YAMLReader.read(yaml)
        } catch {
            // Position and problem only: the line itself may hold a secret.
            problems.append("configuration file: not valid YAML at line \(error.line), column \(error.column): \(error.problem)")
            yamlUnreadable = true
            return
        }
        guard let root, root != .null else { return }
        guard case .mapping(let sections) = root else {
            problems.append("configuration file: expected a mapping of sections (server:, kakao:, firebase:, …) at the top level")
            yamlUnreadable = true
            return
        }
        let sectionNames = Set(keys.map { String($0.section) })
        for section in sections {
            guard sectionNames.contains(section.key) else {
                problems.append(unknownKey(section.key, among: Array(sectionNames)))
                continue
            }
            if section.value == .null { continue }
            guard case .mapping(let entries) = section.value else {
                problems.append("\(section.key): expected a mapping of keys, got \(Self.noun(section.value))")
                continue
            }
            readEntries(entries, under: section.key)
        }
    }

    /// The keys of one mapping; a member that is itself a group of keys (`kakao.oidc`) is read the same way, one level down.
    private mutating func readEntries(_ entries: [YAMLEntry], under prefix: String) {
        for entry in entries {
            let path = "\(prefix).\(entry.key)"
            let value = entry.value
            if keys.contains(where: { $0.path.hasPrefix(path + ".") }) {
                if value == .null { continue }
                guard case .mapping(let group) = value else {
                    problems.append("\(path): expected a mapping of keys, got \(Self.noun(value))")
                    continue
                }
                readEntries(group, under: path)
                continue
            }
            guard let key = keys.first(where: { $0.path == path }) else {
                problems.append(unknownKey(path, among: keys.map(\.path)))
                continue
            }
            guard scope.includes(key.path) else { continue }
            let raw = Self.raw(value)
            let keyProblems = key.apply(raw, to: &config)
            if keyProblems.isEmpty {
                noteSecret(key, raw, variable: nil)
            } else {
                unreadable.insert(key.path)
                problems += keyProblems.map { "\(key.path): \($0)" }
            }
        }
    }

    /// Tells `secrets` about a secret's value or its `_file` key, once the value was read.
    private mutating func noteSecret(_ key: ConfigKey, _ raw: RawConfigValue, variable: String?) {
        let text: String
        switch raw {
        case .text(let value): text = value
        // A list of secrets (`hook.secret` during a rotation) is given like one: written in the file, it falls under the
        // file's mode rule.
        case .list(let items): text = items.joined()
        case .null, .unsupported: return
        }
        if case .secretFile(let secret) = key.field {
            secrets.file(secret, text, label: label(key.path), variable: variable)
        } else if key.isSecret {
            secrets.value(key.path, text, variable: variable)
        }
    }

    /// docs/configuration.md#secrets-in-files: a secret written in a configuration file other users can read is refused
    /// like a key file; the secrets are named, never their values.
    package mutating func refuseSecretsIn(_ file: (path: String, mode: Int)) {
        let written = secrets.inConfigurationFile
        guard !written.isEmpty else { return }
        problems.append(
            "configuration file: holds secrets (\(written.joined(separator: ", "))), but "
                + PrivateFile.refusal(file.path, mode: file.mode)
                + "; or take the secrets out of it (\(written.map { $0 + "_file" }.joined(separator: ", ")), or BRIDGE_* variables)"
        )
    }

    /// Reads the files the `_file` keys name, after every source: the last one to name a file wins, as for any key.
    package mutating func readSecretFiles() {
        let outcome = secrets.read(into: &config, keys: keys)
        problems += outcome.problems
        unreadable.formUnion(outcome.unreadable)
        setByEnvironment.merge(outcome.namedBy) { $1 }
    }

    package mutating func readEnvironment(_ environment: [String: String]) {
        if let host = environment[ConfigLoader.emulatorHostVariable], !host.isEmpty {
            config.firebase.emulatorHost = host
            setByEnvironment["firebase.emulator_host"] = ConfigLoader.emulatorHostVariable
        }
        if let (name, host) = ConfigLoader.metadataHostVariables.lazy.compactMap({ name in
            environment[name].flatMap { $0.isEmpty ? nil : (name, $0) }
        }).first {
            config.firebase.metadataHost = host
            metadataHostVariable = name
        }
        for key in keys where scope.includes(key.path) {
            guard let value = environment[key.environmentName] else { continue }
            setByEnvironment[key.path] = key.environmentName
            let keyProblems = key.apply(.text(value), to: &config)
            if keyProblems.isEmpty {
                unreadable.remove(key.path)
                noteSecret(key, .text(value), variable: key.environmentName)
            } else {
                unreadable.insert(key.path)
                problems += keyProblems.map { "\(label(key.path)): \($0)" }
            }
        }
        let known = Set(keys.map(\.environmentName)).union(ConfigLoader.nonKeyVariables)
        for name in environment.keys.sorted()
        where name.hasPrefix("BRIDGE_") && !known.contains(name) && !Self.isKubernetesServiceLink(name) {
            problems.append(unknownKey(name, among: keys.map(\.environmentName), noun: "environment variable"))
        }
    }

    package mutating func validate() {
        for issue in ConfigValidation.issues(in: config) where !unreadable.contains(issue.path) && scope.includes(issue.path) {
            problems.append("\(label(issue.path)): \(issue.message)")
        }
    }

    /// Kubernetes injects `<SERVICE>_SERVICE_HOST`, `<SERVICE>_PORT_8080_TCP` and the like for every Service in the
    /// namespace; a Service named `bridge` must not stop the process from starting.
    private static func isKubernetesServiceLink(_ name: String) -> Bool {
        if name.contains("_SERVICE_HOST") || name.contains("_SERVICE_PORT") || name.hasSuffix("_PORT") { return true }
        guard let range = name.firstRange(of: "_PORT_") else { return false }
        return name[range.upperBound...].first?.isNumber == true
    }

    private func label(_ path: String) -> String {
        if path == ConfigValidation.metadataHostPath { return metadataHostVariable }
        return setByEnvironment[path].map { "\(path) (from \($0))" } ?? path
    }

    private func unknownKey(_ name: String, among candidates: [String], noun: String = "key") -> String {
        if noun == "key", keys.contains(where: { $0.path == name }) {
            let parts = name.split(separator: ".", maxSplits: 1)
            return "unknown key \(name) (keys are nested: write \(parts[0]): and, indented under it, \(parts[1]):)"
        }
        let best = candidates
            .map { ($0, EditDistance.between($0, name)) }
            .filter { $0.1 <= max(2, name.count / 5) }
            .min { $0.1 < $1.1 }
        return "unknown \(noun) \(name)" + (best.map { " (did you mean \($0.0)?)" } ?? "")
    }

    private static func raw(_ value: YAMLValue) -> RawConfigValue {
        switch value {
        case .null:
            return .null
        case .text(let text):
            return .text(text)
        case .list(let elements):
            var items: [String] = []
            for element in elements {
                guard case .text(let text) = element else { return .unsupported("a list that holds \(noun(element))") }
                items.append(text)
            }
            return .list(items)
        case .mapping:
            return .unsupported("a mapping")
        }
    }

    private static func noun(_ value: YAMLValue) -> String {
        switch value {
        case .null: "nothing"
        case .text: "a single value"
        case .list: "a list"
        case .mapping: "a mapping"
        }
    }
}
