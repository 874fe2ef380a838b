import BridgeJSON
import BridgeSupport
import Foundation
import HTTPTypes
import Hummingbird
import BridgeFeatures
import KakaoBridge
import StandIns
import Synchronization

/// Helpers for the operations tests: reading access-log lines, a server that records request headers, and the real
/// `kakao-bridge` executable as a child process (signals are only honest when sent to a real process).
package enum OpsLog {
    /// The access-log lines (message "request") as JSON objects.
    package static func accessLines(_ lines: [String]) -> [[String: Any]] {
        lines.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["message"] as? String == "request"
            else { return nil }
            return object
        }
    }

    package static func accessLine(_ lines: [String], requestID: String) -> [String: Any]? {
        accessLines(lines).first { $0["request_id"] as? String == requestID }
    }
}

/// A loopback HTTP server that records the `X-Request-ID` of every request and answers like Kakao refusing a token.
package final class HeaderRecorder: Sendable {
    package final class Seen: Sendable {
        package let ids = Mutex<[String]>([])
    }

    package let server: StandInServer
    private let seen: Seen

    private init(server: StandInServer, seen: Seen) {
        self.server = server
        self.seen = seen
    }

    package var requestIDs: [String] { seen.ids.withLock { $0 } }

    package static func start() async throws -> HeaderRecorder {
        let seen = Seen()
        let router = Router()
        router.get("/**") { request, _ -> Response in
            let id = request.headers[HTTPField.Name("X-Request-ID")!] ?? ""
            seen.ids.withLock { $0.append(id) }
            return Response(
                status: .unauthorized, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"msg":"this access token does not exist","code":-401}"#))
            )
        }
        return HeaderRecorder(server: try await StandInServer.start(name: "recorder", router: router), seen: seen)
    }
}

/// `kakao-bridge serve --config FILE` as a child process, its stdout (JSON log lines) captured.
package final class BridgeProcess: @unchecked Sendable {
    package let process = Process()
    private let output = Mutex<[String]>([])
    private let partial = Mutex<String>("")
    private let exited = Mutex<Int32?>(nil)

    package static var executable: URL {
        if let path = ProcessInfo.processInfo.environment["KAKAO_BRIDGE_BINARY"] { return URL(fileURLWithPath: path) }
        // The test bundle sits beside the product in the same build directory.
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return bundle.deletingLastPathComponent().appendingPathComponent("kakao-bridge")
    }

    package init(configPath: String) throws {
        process.executableURL = Self.executable
        process.arguments = ["serve", "--config", configPath]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BRIDGE_") }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.append(String(decoding: data, as: UTF8.self))
        }
        process.terminationHandler = { [weak self] process in
            self?.exited.withLock { $0 = process.terminationStatus }
        }
        try process.run()
    }

    private func append(_ text: String) {
        let complete: [String] = partial.withLock { buffer in
            buffer += text
            var lines = buffer.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            buffer = lines.removeLast()
            return lines
        }
        output.withLock { $0 += complete }
    }

    package var lines: [String] { output.withLock { $0 } }
    package var exitStatus: Int32? { exited.withLock { $0 } }

    package func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for a log line that satisfies `match`; returns it.
    package func waitForLine(timeout: Duration = .seconds(20), _ match: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let line = lines.first(where: match) { return line }
            if exitStatus != nil, let line = lines.first(where: match) { return line }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("no matching log line within \(timeout); output:\n\(lines.suffix(20).joined(separator: "\n"))")
    }

    /// The port from Hummingbird's "Server started and listening on 127.0.0.1:PORT".
    package func waitForPort() async throws -> Int {
        let line = try await waitForLine { $0.contains("Server started and listening on") }
        guard let range = line.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(line[range].split(separator: ":").last ?? "")
        else { throw HarnessError("no port in: \(line)") }
        return port
    }

    /// The admin port (docs/operations.md#the-admin-port) and the public one, told apart by the admin listener's own line.
    package func waitForPorts() async throws -> (public: Int, admin: Int) {
        let adminLine = try await waitForLine { $0.contains("admin port listening") }
        guard let range = adminLine.range(of: #""port":"?(\d+)"?"#, options: .regularExpression),
              let admin = Int(adminLine[range].filter(\.isNumber))
        else { throw HarnessError("no port in: \(adminLine)") }
        let publicLine = try await waitForLine { line in
            line.contains("Server started and listening on") && !line.contains("127.0.0.1:\(admin)\"")
                && !line.hasSuffix("127.0.0.1:\(admin)")
        }
        guard let range = publicLine.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(publicLine[range].split(separator: ":").last ?? "")
        else { throw HarnessError("no port in: \(publicLine)") }
        return (port, admin)
    }

    package func waitForExit(timeout: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let status = exitStatus { return status }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("the process did not exit within \(timeout)")
    }

    package func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}

/// A YAML configuration for the executable, pointing at a test world's stand-ins.
package struct OpsConfigFile {
    package var appID: Int64 = TestWorld.appID
    package var kakaoURL: String
    package var serviceAccountFile: String
    package var graceSeconds = 5
    package var port = 0
    /// `server.admin_port` (docs/operations.md#the-admin-port); none when nil.
    package var adminPort: Int?
    package var extra = ""

    /// What the memberwise initializer gave when this type was internal to the test target.
    package init(
        appID: Int64 = TestWorld.appID, kakaoURL: String, serviceAccountFile: String, graceSeconds: Int = 5, port: Int = 0,
        adminPort: Int? = nil, extra: String = ""
    ) {
        self.appID = appID
        self.kakaoURL = kakaoURL
        self.serviceAccountFile = serviceAccountFile
        self.graceSeconds = graceSeconds
        self.port = port
        self.adminPort = adminPort
        self.extra = extra
    }

    package func yaml() -> String {
        """
        server:
          host: 127.0.0.1
          port: \(port)
          shutdown_grace_seconds: \(graceSeconds)
          admin_port: \(adminPort.map(String.init) ?? "~")
        kakao:
          app_id: \(appID)
          api_base_url: \(kakaoURL)
          cache_seconds: 0
        firebase:
          service_account_file: \(serviceAccountFile)
          # These processes only have a Kakao stand-in: the user sync would reach for Google itself.
          user_sync: off
        upstream:
          timeout_ms: 5000
        log:
          level: info
          format: json
        \(extra)
        """
    }

    package func write(to path: String) throws {
        try Data(yaml().utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

package enum OpsFiles {
    /// Writes `text` atomically with mode 600, as a key file must be (the service refuses one other users can read).
    package static func writePrivate(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// A temporary directory with `bridge.yaml` for the world's Kakao stand-in and key file: what a spawned `serve` reads.
    package static func configFile(for world: TestWorld) throws -> (directory: URL, path: String) {
        let directory = try temporaryDirectory()
        let path = directory.appendingPathComponent("bridge.yaml").path
        try OpsConfigFile(kakaoURL: world.servers.kakao.baseURL, serviceAccountFile: world.config.firebase.serviceAccountFile)
            .write(to: path)
        return (directory, path)
    }

    package static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kakao-bridge-ops-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
