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

/// deploy/README.md#docker works as written, checked without a Docker engine: the Dockerfile, the README's `docker run`
/// lines and the Kubernetes manifests agree on the image's user, paths, command and ports; the key mode the README
/// sets passes the service's own rule; and, as root, the binaries run as the image's user the way the two lines run
/// them (the sandbox on 0.0.0.0 through to a login; `serve` reading a key owned by that user).
@Suite(.serialized) struct DockerImageTests {
    static let root = HardeningDeployTests.root

    /// What the Dockerfile says of the image.
    struct Image {
        let uid: Int
        let user: String
        let entrypoint: [String]
        let command: [String]
        let environment: [String: String]
        /// Where `COPY --from=build` puts files.
        let copied: [String]
        let text: String

        init(_ text: String) throws {
            self.text = text
            let uidText = try #require(DockerImageTests.firstMatch(#"--uid (\d+)"#, in: text))
            uid = try #require(Int(uidText))
            user = try #require(DockerImageTests.firstMatch(#"(?m)^USER (\S+)$"#, in: text))
            let entrypointText = try #require(DockerImageTests.firstMatch(#"(?m)^ENTRYPOINT (\[.*\])$"#, in: text))
            entrypoint = try Self.array(entrypointText)
            let commandText = try #require(DockerImageTests.firstMatch(#"(?m)^CMD (\[.*\])$"#, in: text))
            command = try Self.array(commandText)
            let lines = text.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            var environment: [String: String] = [:]
            for line in lines where line.hasPrefix("ENV ") {
                for pair in line.dropFirst(4).split(separator: " ") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { environment[String(parts[0])] = String(parts[1]) }
                }
            }
            self.environment = environment
            copied = lines.filter { $0.hasPrefix("COPY --from=build ") }.compactMap { $0.split(separator: " ").last.map(String.init) }
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
        let build: [String]
        let serve: [String]
        let sandbox: [String]
        let chmod: [String]
        let chown: [String]?
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
        let readme = try read("deploy/README.md")
        let chown = firstMatch(#"`sudo chown ([^`]*?) &&"#, in: readme).map { ["chown"] + words($0) }
        return Examples(image: image, build: build, serve: serve, sandbox: sandbox, chmod: chmod, chown: chown, tag: tag)
    }

    @Test func theDockerfileTheReadmeAndKubernetesAgree() throws {
        let examples = try Self.examples()
        let image = examples.image
        #expect(image.user == "\(image.uid):\(image.uid)")
        // `sandbox` as the command reaches the subcommand: the entry point is the binary alone, `serve` is the command.
        #expect(image.entrypoint == ["/usr/local/bin/kakao-bridge"])
        #expect(image.command.first == "serve" && image.command.dropFirst().first == "--config")
        let configPath = try #require(image.command.last)
        // `kakao-bridge sandbox` runs kakao-bridge-sandbox from its own directory.
        #expect(image.copied.contains("/usr/local/bin/kakao-bridge") && image.copied.contains("/usr/local/bin/kakao-bridge-sandbox"))
        #expect(image.text.contains("--product kakao-bridge-sandbox"))
        #expect(image.environment["BRIDGE_SERVER_HOST"] == "0.0.0.0")
        let keyPath = try #require(image.environment["BRIDGE_FIREBASE_SERVICE_ACCOUNT_FILE"])

        // The service's line: the image's name, its port, the configuration and the key where the image reads them,
        // run as the key's owner.
        let serve = examples.serve
        #expect(serve.last == examples.tag)
        let port = try #require(image.environment["BRIDGE_SERVER_PORT"])
        #expect(Self.option("-p", in: serve) == "\(port):\(port)")
        #expect(Self.option("--user", in: serve) == "$(id -u):$(id -g)")
        let volumes = Self.volumes(serve)
        #expect(volumes[configPath] == "$PWD/bridge.yaml", "\(volumes)")
        let keyFile = try #require(volumes[keyPath], "\(volumes)")
        // The key is made private before the run, and the alternative gives it to the image's own user.
        #expect(examples.chmod.count == 3 && keyFile.hasSuffix("/" + examples.chmod[2]))
        let chown = try #require(examples.chown)
        #expect(chown.dropFirst().first == "\(image.uid):\(image.uid)" && chown.last == examples.chmod[2])

        // The sandbox's line: on every interface of the container, at the port it listens on by default.
        let sandbox = examples.sandbox
        let imageIndex = try #require(sandbox.firstIndex(of: examples.tag))
        #expect(Array(sandbox[(imageIndex + 1)...]) == ["sandbox", "--host", "0.0.0.0"])
        let sandboxPort = try #require(Self.firstMatch(#"(?m)^  port: (\d+)"#, in: try Self.read("config/sandbox.yaml")))
        #expect(Self.option("-p", in: sandbox) == "\(sandboxPort):\(sandboxPort)")
        #expect(image.text.contains(sandbox.joined(separator: " ")), "the Dockerfile's header shows another sandbox line")

        // Kubernetes runs the same image as the same user, with the same command.
        let deployment = try Self.read("deploy/kubernetes/deployment.yaml")
        for key in ["runAsUser", "runAsGroup", "fsGroup"] {
            #expect(HardeningDeployTests.value(of: key, in: deployment) == "\(image.uid)", "\(key)")
        }
        let args = try #require(HardeningDeployTests.value(of: "args", in: deployment))
        #expect(try Image.array(args) == image.command)
    }

    /// Issue 44: the image says what it is (OCI labels; version and commit are build arguments of the final stage) and
    /// checks its own health with the binary (there is no curl in it). Only the file: no Docker engine here.
    @Test func theImageIsLabelledAndChecksItsHealthWithTheBinary() throws {
        let examples = try Self.examples()
        let text = examples.image.text
        let finalStage = try #require(text.components(separatedBy: "\nFROM ").last)
        let labels = [
            "title": "\"kakao-bridge\"", "version": "\"${KAKAO_BRIDGE_VERSION}\"", "revision": "\"${KAKAO_BRIDGE_COMMIT}\"",
            "source": "\"${KAKAO_BRIDGE_SOURCE}\"", "licenses": "\"Apache-2.0\"",
        ]
        for (name, value) in labels {
            #expect(finalStage.contains("org.opencontainers.image.\(name)=\(value)"), "label \(name)")
        }
        for argument in ["KAKAO_BRIDGE_VERSION", "KAKAO_BRIDGE_COMMIT", "KAKAO_BRIDGE_SOURCE"] {
            #expect(finalStage.contains("\nARG \(argument)="), "\(argument) is not an argument of the final stage")
        }
        #expect(try Self.read("LICENSE").contains("Apache License"))
        let healthcheck = try #require(Self.firstMatch(#"(?m)^HEALTHCHECK .*CMD (\[.*\])$"#, in: finalStage))
        let command = try Image.array(healthcheck)
        // The configuration `serve` reads (the image's CMD), so the check asks the port the service really listens on.
        #expect(command == [examples.image.entrypoint[0], "health", "--config", "/etc/kakao-bridge/bridge.yaml"])
        #expect(examples.image.copied.contains(command[0]))
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
        let uid = examples.image.uid
        try await EndToEndLock.run {
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let binary = try HardeningProcessTests.reachableCopies(in: directory)
            let asImageUser = ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--"]

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

            // `serve`: the key owned by the image's user with the README's mode, the image's environment (any free
            // port), the Dockerfile's command with this test's configuration file.
            let mode = try #require(Int(examples.chmod[1], radix: 8))
            let key = directory.appendingPathComponent("service-account.json").path
            try SandboxServiceAccount.generate(projectID: "docker-image-test").writeKeyFile(to: key)
            try FileManager.default.setAttributes([.posixPermissions: mode, .ownerAccountID: uid, .groupOwnerAccountID: uid], ofItemAtPath: key)
            let config = directory.appendingPathComponent("bridge.yaml").path
            try Data("kakao:\n  app_id: 42\nlog:\n  format: text\n".utf8).write(to: URL(fileURLWithPath: config))
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config)
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
