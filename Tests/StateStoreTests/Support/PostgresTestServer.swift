import BridgeSupport
import Foundation
import StateStore

/// The PostgreSQL the tests use: `KB_TEST_POSTGRES_URL` when set, otherwise one server per test process started by
/// scripts/postgres-test-server in a temporary directory, stopped and removed at exit.
enum PostgresTestServer {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    static let location: Task<StateStoreURL.PostgresLocation, any Error> = Task { try start() }

    nonisolated(unsafe) private static var startedDirectory: String?

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-test-server").path

    private static func start() throws -> StateStoreURL.PostgresLocation {
        if let url = ProcessInfo.processInfo.environment["KB_TEST_POSTGRES_URL"], !url.isEmpty {
            return try location(url)
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kb-postgres-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let errors = directory + ".err"
        // popen rather than Foundation's Process: its waitUntilExit can miss the end of a script whose children
        // (the server) outlive it.
        guard let pipe = popen("/bin/bash '\(script)' start '\(directory)' 2>'\(errors)'", "r") else {
            throw Unavailable(description: "could not run \(script)")
        }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        let status = pclose(pipe)
        let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: errors)
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw Unavailable(description: """
                PostgreSQL tests need a server: set KB_TEST_POSTGRES_URL or install PostgreSQL (scripts/setup installs \
                the package `postgresql`). scripts/postgres-test-server said: \(message)
                """)
        }
        startedDirectory = directory
        atexit {
            guard let directory = PostgresTestServer.startedDirectory else { return }
            _ = system("/bin/bash '\(PostgresTestServer.script)' stop '\(directory)' >/dev/null 2>&1; rm -rf '\(directory)'")
        }
        return try location(output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static func location(_ url: String) throws -> StateStoreURL.PostgresLocation {
        guard case .postgres(let location) = try StateStoreURL(parsing: url) else {
            throw Unavailable(description: "KB_TEST_POSTGRES_URL is not a postgres:// URL")
        }
        return location
    }
}
