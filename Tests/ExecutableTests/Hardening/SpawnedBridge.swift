import Foundation
import EndToEndSupport
#if canImport(Glibc)
import Glibc
#endif

/// The executable started with `posix_spawn`, with an empty signal mask and SIGHUP at its default action: a child of
/// Foundation's `Process` inherits the test process's mask (which may block SIGHUP already) and would hide what the
/// binary does for itself. Output goes to a file; `launcher` runs in front of the binary (`prlimit`, `setpriv`), which
/// exec it in the same process.
final class SpawnedBridge: @unchecked Sendable {
    let pid: pid_t
    let outputPath: String
    private var reaped: Int32?

    /// `executable`: the built `kakao-bridge` unless said (a copy where another user can reach it, for one).
    init(arguments: [String], launcher: [String] = [], outputPath: String, executable: String = BridgeProcess.executable.path) throws {
        self.outputPath = outputPath
        let argv = launcher + [executable] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var hangup = sigset_t()
        sigemptyset(&hangup)
        sigaddset(&hangup, SIGHUP)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &hangup)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BRIDGE_") }.map { "\($0.key)=\($0.value)" }
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let path = argv[0].hasPrefix("/") ? argv[0] : try Shell.which(argv[0])
        let status = posix_spawn(&pid, path, &actions, &attributes, &cArguments, &cEnvironment)
        guard status == 0 else { throw HarnessError("posix_spawn \(argv[0]): \(status)") }
        self.pid = pid
    }

    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }

    /// The exit status (or 128 + signal), once the process has ended; `nil` while it runs.
    var exitStatus: Int32? {
        if let reaped { return reaped }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let signal = status & 0x7f
        reaped = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return reaped
    }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// The port from Hummingbird's "Server started and listening on 127.0.0.1:PORT".
    func waitForPort(timeout: Duration = .seconds(20)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, exitStatus == nil {
            if let range = output.range(of: #"listening on 127\.0\.0\.1:(\d+)"#, options: .regularExpression),
                let port = Int(output[range].split(separator: ":").last ?? "")
            {
                return port
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("not listening (exit \(exitStatus.map(String.init) ?? "none")): \(output.suffix(1500))")
    }

    /// A line of /proc/PID/<file> that starts with `prefix`.
    func procLine(_ file: String, _ prefix: String) -> String? {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init)
    }

    func stop() {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            reaped = 137
        }
        try? FileManager.default.removeItem(atPath: outputPath)
    }
}
