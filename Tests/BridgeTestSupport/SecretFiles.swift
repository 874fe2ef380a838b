import Foundation

/// A scratch directory for one test, removed at its end.
package final class SecretFiles {
    package let directory: URL

    package init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-bridge-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    package func write(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }
}
