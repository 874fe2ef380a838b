import BridgeSupport
import CurlHTTP
import Foundation
import StandIns
import Testing
import EndToEndSupport
import BridgeTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// deploy/README.md#docker works as written, run without a Docker engine: the key mode the README sets passes the
/// service's own rule; and, as root, the binaries run as the image's user (its `USER`) the way the README's two lines
/// run them (the sandbox on 0.0.0.0 through to a login; `serve` with the image's environment and command, reading a
/// key owned by that user).
@Suite(.serialized) struct DockerImageTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// What the Dockerfile says of the image.
    struct Image {
        /// The user and group of `USER uid:gid`, the ones Docker runs the entry point as.
        let uid: Int
        let gid: Int
        let command: [String]
        let environment: [String: String]
        /// The `HEALTHCHECK`'s command.
        let healthcheck: [String]

        init(_ text: String) throws {
            let user = try #require(DockerImageTests.firstMatch(#"(?m)^USER (\S+)$"#, in: text)).split(separator: ":")
            uid = try #require(user.first.flatMap { Int($0) }, "USER names no numeric user")
            gid = try #require(user.count == 2 ? Int(user[1]) : nil, "USER names no numeric group")
            let commandText = try #require(DockerImageTests.firstMatch(#"(?m)^CMD (\[.*\])$"#, in: text))
            command = try Self.array(commandText)
            let healthcheckText = try #require(DockerImageTests.firstMatch(#"(?m)^HEALTHCHECK .*CMD (\[.*\])$"#, in: text))
            healthcheck = try Self.array(healthcheckText)
            let lines = text.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            var environment: [String: String] = [:]
            for line in lines where line.hasPrefix("ENV ") {
                for pair in line.dropFirst(4).split(separator: " ") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { environment[String(parts[0])] = String(parts[1]) }
                }
            }
            self.environment = environment
        }

        static func array(_ json: String) throws -> [String] {
            let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
            return try #require(value as? [String])
        }
    }

    /// The commands of the README's `sh` blocks, continuation lines joined, each split into words as a shell would
    /// (double quotes kept together, without the quotes).
    static func commands(_ readme: String) -> [[String]] {
        var commands: [[String]] = []
        for block in readme.components(separatedBy: "```sh\n").dropFirst() {
            let body = block.components(separatedBy: "```").first ?? ""
            for line in body.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n") {
                for command in line.components(separatedBy: " && ") { commands.append(words(command)) }
            }
        }
        return commands
    }

    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" {
                quoted.toggle()
                started = true
            } else if character == " " && !quoted {
                if started { words.append(current) }
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { words.append(current) }
        return words
    }

    static func firstMatch(_ pattern: String, in text: String) -> String? {
        guard let expression = try? NSRegularExpression(pattern: pattern),
              let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: match.numberOfRanges > 1 ? 1 : 0), in: text)
        else { return nil }
        return String(text[range])
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// `-v SOURCE:TARGET:ro` → TARGET → SOURCE.
    static func volumes(_ run: [String]) -> [String: String] {
        var volumes: [String: String] = [:]
        for (index, word) in run.enumerated() where word == "-v" && index + 1 < run.count {
            let parts = run[index + 1].split(separator: ":").map(String.init)
            if parts.count >= 2 { volumes[parts[1]] = parts[0] }
        }
        return volumes
    }

    static func option(_ name: String, in run: [String]) -> String? {
        run.firstIndex(of: name).flatMap { $0 + 1 < run.count ? run[$0 + 1] : nil }
    }

    struct Examples {
        let image: Image
        let serve: [String]
        let sandbox: [String]
        let chmod: [String]
        /// The image's name, as `docker build -t` gives it.
        let tag: String
    }

    static func examples() throws -> Examples {
        let image = try Image(try read("deploy/Dockerfile"))
        let commands = Self.commands(try read("deploy/README.md"))
        let build = try #require(commands.first { $0.starts(with: ["docker", "build"]) })
        let tag = try #require(option("-t", in: build))
        let runs = commands.filter { $0.starts(with: ["docker", "run"]) }
        let sandbox = try #require(runs.first { $0.contains("sandbox") })
        let serve = try #require(runs.first { !$0.contains("sandbox") })
        let chmod = try #require(commands.first { $0.first == "chmod" })
        return Examples(image: image, serve: serve, sandbox: sandbox, chmod: chmod, tag: tag)
    }

    /// The mode the README gives the key passes the rule the service applies to it (docs/configuration.md#secrets-in-files),
    /// and lets its owner, the user the container runs as, read it.
    @Test func theKeyModeOfTheReadmePassesTheServicesRule() throws {
        let examples = try Self.examples()
        let mode = try #require(Int(examples.chmod[1], radix: 8))
        let files = try SecretFiles()
        let path = try files.write("service-account.json", "{}", mode: mode)
        #expect(PrivateFile.refusal(path) == nil)
        #expect(mode & 0o400 != 0, "the owner cannot read the key")
    }

    /// As the container would run them, minus Docker: the image's user (`setpriv`), the image's environment, the
    /// Dockerfile's command and the README's arguments. Root only (`setpriv`), as HardeningProcessTests.
    @Test(.enabled(if: getuid() == 0)) func theBinariesRunAsTheImagesUserAsTheReadmeRunsThem() async throws {
        let examples = try Self.examples()
        let uid = examples.image.uid, gid = examples.image.gid
        try await EndToEndLock.run {
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let binary = try HardeningProcessTests.reachableCopies(in: directory)
            let asImageUser = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--"]

            // The sandbox: the README's arguments; in the container the working directory holds no config/sandbox.yaml,
            // so the built-in defaults apply (a missing --defaults file here); any free port instead of 8080.
            let imageIndex = try #require(examples.sandbox.firstIndex(of: examples.tag))
            let arguments = Array(examples.sandbox[(imageIndex + 1)...])
                + ["--port", "0", "--defaults", directory.appendingPathComponent("none.yaml").path]
            let sandbox = try SpawnedBridge(
                arguments: arguments, launcher: asImageUser, outputPath: directory.appendingPathComponent("sandbox.log").path,
                executable: binary
            )
            defer { sandbox.stop() }
            let port = try await Self.waitForAllInterfaces(sandbox)
            let http = CurlHTTPClient()
            defer { http.shutdown() }
            // The banner comes once the bridge listens, with the token of a user that goes through every step.
            let token = try await Self.waitForValidToken(sandbox)
            let login = try await http.execute(HTTPRequest(
                url: "http://127.0.0.1:\(port)/v1/token-exchange", headers: [("Authorization", "Bearer \(token)")]
            ))
            #expect(login.status == 200, "\(String(decoding: login.body, as: UTF8.self))")

            // `serve`: the image's environment (any free port) and the Dockerfile's command, with the files where the
            // README's `docker run` mounts them (`$PWD` is this test's directory): the key and the configuration are
            // found only if its mounts are where the image reads them. The key is owned by the image's user, written
            // with a usual umask; then the README's `chmod`, on the file that line names.
            let mounts = Self.volumes(examples.serve).mapValues { $0.replacingOccurrences(of: "$PWD", with: directory.path) }
            func mounted(_ path: String) throws -> String {
                try #require(mounts[path], "the README's docker run mounts nothing at \(path): \(mounts)")
            }
            let mode = try #require(Int(examples.chmod[1], radix: 8))
            let key = try mounted(try #require(examples.image.environment["BRIDGE_FIREBASE_SERVICE_ACCOUNT_FILE"]))
            try SandboxServiceAccount.generate(projectID: "docker-image-test").writeKeyFile(to: key)
            try FileManager.default.setAttributes([.posixPermissions: 0o644, .ownerAccountID: uid, .groupOwnerAccountID: gid], ofItemAtPath: key)
            let config = try mounted(try #require(examples.image.command.last))
            try Data("kakao:\n  app_id: 42\nlog:\n  format: text\n".utf8).write(to: URL(fileURLWithPath: config))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config)
            let chmodded = directory.appendingPathComponent(try #require(examples.chmod.last)).path
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: chmodded)
            var environment = examples.image.environment
            environment["BRIDGE_SERVER_PORT"] = "0"
            environment["BRIDGE_FIREBASE_SERVICE_ACCOUNT_FILE"] = key
            let command = Array(examples.image.command.dropLast()) + [config]
            func serve(_ name: String) throws -> SpawnedBridge {
                try SpawnedBridge(
                    arguments: command, launcher: asImageUser + ["/usr/bin/env"] + environment.map { "\($0.key)=\($0.value)" },
                    outputPath: directory.appendingPathComponent(name).path, executable: binary
                )
            }
            let service = try serve("serve.log")
            defer { service.stop() }
            let servePort = try await Self.waitForAllInterfaces(service)
            #expect(try await http.execute(HTTPRequest(url: "http://127.0.0.1:\(servePort)/healthz")).status == 200)

            // The image's HEALTHCHECK as Docker runs it beside `serve` (the image's user and environment, its files where
            // the README mounts them; the port `serve` listens on here): healthy. Only the binary can run it: the image
            // has no curl.
            let check = examples.image.healthcheck
            try #require(check.first == "/usr/local/bin/kakao-bridge", "the HEALTHCHECK runs \(check), not the binary")
            var checkEnvironment = environment
            checkEnvironment["BRIDGE_SERVER_PORT"] = "\(servePort)"
            var healthy: Int32?
            var said = ""
            let checkDeadline = ContinuousClock.now + .seconds(15)
            while healthy != 0, ContinuousClock.now < checkDeadline {
                let run = try SpawnedBridge(
                    arguments: check.dropFirst().map { mounts[$0] ?? $0 },
                    launcher: asImageUser + ["/usr/bin/env"] + checkEnvironment.map { "\($0.key)=\($0.value)" },
                    outputPath: directory.appendingPathComponent("health.log").path, executable: binary
                )
                let runDeadline = ContinuousClock.now + .seconds(20)
                while run.exitStatus == nil, ContinuousClock.now < runDeadline { try await Task.sleep(for: .milliseconds(50)) }
                healthy = run.exitStatus
                said = run.output
                run.stop()
                if healthy != 0 { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(healthy == 0, "the HEALTHCHECK: exit \(healthy.map(String.init) ?? "none"): \(said.suffix(1000))")
            service.stop()

            // Without the README's step (the key still another user's), the image's user cannot read it: refused at start.
            try FileManager.default.setAttributes([.ownerAccountID: 0, .groupOwnerAccountID: 0], ofItemAtPath: key)
            let refused = try serve("refused.log")
            defer { refused.stop() }
            let deadline = ContinuousClock.now + .seconds(20)
            while refused.exitStatus == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(refused.exitStatus == 78, "\(refused.output.suffix(1000))")
        }
    }

    static func waitForValidToken(_ process: SpawnedBridge) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, process.exitStatus == nil {
            let line = process.output.split(separator: "\n").first { $0.hasPrefix("  valid ") }
            if let token = line?.split(separator: " ").dropFirst().first { return String(token) }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("no valid token in the sandbox's banner: \(process.output.suffix(1500))")
    }

    /// The port of "listening on 0.0.0.0:PORT": the bridge itself (the sandbox's stand-ins listen on 127.0.0.1).
    static func waitForAllInterfaces(_ process: SpawnedBridge) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, process.exitStatus == nil {
            if let port = firstMatch(#"listening on 0\.0\.0\.0:(\d+)"#, in: process.output).flatMap(Int.init) { return port }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw HarnessError("not listening on 0.0.0.0 (exit \(process.exitStatus.map(String.init) ?? "none")): \(process.output.suffix(1500))")
    }
}
