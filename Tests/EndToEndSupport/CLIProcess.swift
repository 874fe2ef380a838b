import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import StandIns
import Synchronization
import Testing

// MARK: Running the executable

/// One run of the built executable with the package root as working directory (where `config/sandbox.yaml` is) and no
/// `BRIDGE_*` variables from the test's own environment.
package final class CLIProcess: Sendable {
    package struct Finished {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    private let process: Process
    private let output = Mutex<(stdout: Data, stderr: Data)>((Data(), Data()))
    /// Status and instant of the exit, taken on Foundation's thread: the test's own tasks may be slow to notice it.
    private let exit = Mutex<(status: Int32, at: ContinuousClock.Instant)?>(nil)

    private init(process: Process) { self.process = process }

    package static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// Beside the test bundle (same build directory and configuration), else `.build/debug`.
    package static var executable: URL {
        get throws {
            var candidates: [URL] = []
            if let path = Bundle.main.executablePath {
                candidates.append(URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("kakao-bridge"))
            }
            candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("kakao-bridge"))
            candidates.append(packageRoot.appendingPathComponent(".build/debug/kakao-bridge"))
            guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw CLIError("kakao-bridge executable not found; looked at \(candidates.map(\.path))")
            }
            return found
        }
    }

    package static func start(_ arguments: [String]) throws -> CLIProcess {
        let process = Process()
        process.executableURL = try executable
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BRIDGE_") }
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let run = CLIProcess(process: process)
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            run.output.withLock { $0.stdout.append(data) }
        }
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            run.output.withLock { $0.stderr.append(data) }
        }
        process.terminationHandler = { finished in
            let at = ContinuousClock.now
            run.exit.withLock { $0 = (finished.terminationStatus, at) }
        }
        try process.run()
        return run
    }

    package static func run(_ arguments: [String], timeout: Duration) async throws -> Finished {
        let run = try start(arguments)
        guard let status = await run.waitForExit(timeout: timeout) else {
            run.kill()
            throw CLIError("kakao-bridge \(arguments.joined(separator: " ")) did not finish within \(timeout):\n\(run.stdout)\n\(run.stderr)")
        }
        return Finished(status: status, stdout: run.stdout, stderr: run.stderr)
    }

    package var stdout: String { String(decoding: output.withLock { $0.stdout }, as: UTF8.self) }
    package var stderr: String { String(decoding: output.withLock { $0.stderr }, as: UTF8.self) }

    /// Polls: the process's output arrives on Foundation's own threads.
    package func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = exit.withLock({ $0?.status }) {
                // Let the pipes drain what the process wrote just before exiting.
                try? await Task.sleep(for: .milliseconds(200))
                return status
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    package func waitForLine(timeout: Duration, where matches: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let line = stdout.split(separator: "\n").map(String.init).first(where: matches) { return line }
            if let status = exit.withLock({ $0?.status }) {
                throw CLIError("exited \(status) before printing the line:\n\(stdout)\n\(stderr)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CLIError("the line did not appear within \(timeout):\n\(stdout)\n\(stderr)")
    }

    /// SIGTERM, then the exit status and how long the process took to exit.
    package func terminate(waitingUpTo timeout: Duration) async throws -> (status: Int32, took: Duration) {
        let sent = ContinuousClock.now
        process.terminate()
        guard await waitForExit(timeout: timeout) != nil, let exit = exit.withLock({ $0 }) else {
            throw CLIError("still running \(timeout) after SIGTERM")
        }
        return (exit.status, sent.duration(to: exit.at))
    }

    package func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}

package struct CLIError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A scratch directory removed when the test's value goes away.
package final class TemporaryDirectory {
    package let path: String

    package init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-bridge-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    package func write(_ name: String, _ contents: String) throws -> String {
        let file = path + "/" + name
        try Data(contents.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// A fresh service-account key file, mode 600 as an operator would set it (one others can read is refused).
    package func serviceAccount() throws -> String {
        let account = try write("service-account.json", try SandboxServiceAccount.generate().json())
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: account)
        return account
    }

    /// The smallest configuration `check-config` accepts (Kakao's app id and a service-account key file), then `more`
    /// as written; mode 600 as an operator keeps it. `account` names the key file; by default a fresh one is made.
    package func configFile(account: String? = nil, adding more: String = "") throws -> String {
        let account = try account ?? serviceAccount()
        let file = try write("bridge-\(UUID().uuidString).yaml", """
            kakao:
              app_id: 42
            firebase:
              service_account_file: \(account)

            """ + more)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
