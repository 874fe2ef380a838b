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

    private static func start() throws -> StateStoreURL.PostgresLocation {
        if let url = ProcessInfo.processInfo.environment["KB_TEST_POSTGRES_URL"], !url.isEmpty {
            return try location(url)
        }
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/postgres-test-server").path
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kb-postgres-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, "start", directory]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let message = String(decoding: err, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw Unavailable(description: """
                PostgreSQL tests need a server: set KB_TEST_POSTGRES_URL or install PostgreSQL (scripts/setup installs \
                the package `postgresql`). scripts/postgres-test-server said: \(message)
                """)
        }
        startedDirectory = directory
        atexit {
            guard let directory = PostgresTestServer.startedDirectory else { return }
            let stop = Process()
            stop.executableURL = URL(fileURLWithPath: "/bin/bash")
            let script = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("scripts/postgres-test-server").path
            stop.arguments = [script, "stop", directory]
            try? stop.run()
            stop.waitUntilExit()
            try? FileManager.default.removeItem(atPath: directory)
        }
        let url = String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return try location(url)
    }

    private static func location(_ url: String) throws -> StateStoreURL.PostgresLocation {
        guard case .postgres(let location) = try StateStoreURL(parsing: url) else {
            throw Unavailable(description: "KB_TEST_POSTGRES_URL is not a postgres:// URL")
        }
        return location
    }
}
