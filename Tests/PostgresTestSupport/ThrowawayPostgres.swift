import Foundation

/// The PostgreSQL the tests use (StateStoreTests and the fleet tests): `KB_TEST_POSTGRES_URL` when set, otherwise one
/// throwaway server per test process, started by scripts/postgres-test-server in a temporary directory, stopped and
/// removed at exit.
public enum ThrowawayPostgres {
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The server's `postgres://USER@127.0.0.1:PORT/DB?sslmode=disable` URL, started on first use.
    public static let url: Task<String, any Error> = Task {
        // On a thread of its own: initdb and the server's start take seconds, and Swift's few pool threads are every
        // other test's too (a test's timer must not wait for them).
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try start() }) }
        }
    }

    nonisolated(unsafe) private static var startedDirectory: String?

    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/postgres-test-server").path

    private static let missing = """
        PostgreSQL tests need a server: install PostgreSQL (scripts/setup installs the package `postgresql`) or set \
        KB_TEST_POSTGRES_URL to a server whose user may create databases
        """

    private static func start() throws -> String {
        if let url = ProcessInfo.processInfo.environment["KB_TEST_POSTGRES_URL"], !url.isEmpty { return url }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("kb-postgres-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        let url = try startServer(in: directory)
        startedDirectory = directory
        atexit {
            guard let directory = ThrowawayPostgres.startedDirectory else { return }
            ThrowawayPostgres.stopServer(in: directory)
        }
        return url
    }

    /// A server of the caller's own in `directory` (a test that stops or freezes its server must not share one); its
    /// URL. The caller stops it with `stopServer(in:)`.
    public static func startServer(in directory: String) throws -> String {
        let errors = directory + ".err"
        // popen rather than Foundation's Process: its waitUntilExit can miss the end of a script whose children (the
        // server) outlive it.
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
            throw Unavailable(description: missing + ". scripts/postgres-test-server said: \(message)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server `startServer(in:)` started and removes its directory.
    public static func stopServer(in directory: String) {
        _ = system("/bin/bash '\(script)' stop '\(directory)' >/dev/null 2>&1; rm -rf '\(directory)'")
    }
}
