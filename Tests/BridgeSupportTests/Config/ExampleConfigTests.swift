import BridgeSupport
import Foundation
import Testing

/// Issue 44: the README says `config/bridge.example.yaml` lists every key. Held against the key table itself
/// (`ConfigKey.all`), so a key added to the table without its line in the example fails here.
@Suite("The example configuration")
struct ExampleConfigTests {
    static let example = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("config/bridge.example.yaml")

    /// Every key path the file sets (uncommented), nested groups (`kakao.oidc.jwks_url`) included.
    static func paths(_ value: YAMLValue, under prefix: String = "") -> Set<String> {
        guard case .mapping(let entries) = value else { return prefix.isEmpty ? [] : [prefix] }
        var paths: Set<String> = prefix.isEmpty ? [] : [prefix]
        for entry in entries {
            paths.formUnion(Self.paths(entry.value, under: prefix.isEmpty ? entry.key : prefix + "." + entry.key))
        }
        return paths
    }

    @Test func theExampleListsEveryKeyOfTheKeyTable() throws {
        let text = try String(contentsOf: Self.example, encoding: .utf8)
        let root = try #require(try YAMLReader.read(text))
        let listed = Self.paths(root)
        let missing = ConfigKey.all.map(\.path).filter { !listed.contains($0) }
        #expect(missing.isEmpty, "config/bridge.example.yaml lacks \(missing)")
        // And it is a configuration the service accepts.
        _ = try ConfigLoader.parse(yaml: text, environment: [:])
    }
}
