import BridgeJSON
import BridgeSupport
import CurlHTTP
import Foundation
import PostgresTestSupport
import Hummingbird
import StandIns
import Synchronization
import Testing
import EndToEndSupport

/// Scaling out (docs/operations.md#scaling-out) end to end: two real `kakao-bridge serve` processes configured
/// identically against one test world's stand-ins and one state store, the way a fleet runs.

/// The durable stores a fleet can share.
enum FleetStore: String, CustomTestStringConvertible, Sendable {
    case postgres
    case sqlite

    var testDescription: String { rawValue }
}

/// One test's store: a fresh PostgreSQL database on the test process's server (the service keeps its tables in a schema
/// of a fixed name, so a database per test keeps tests apart), or a SQLite file in a directory of its own.
struct FleetStateLocation {
    let url: String
    let directory: URL

    static func make(_ kind: FleetStore, in directory: URL) async throws -> FleetStateLocation {
        switch kind {
        case .sqlite:
            return FleetStateLocation(url: "sqlite://" + directory.appendingPathComponent("state.db").path, directory: directory)
        case .postgres:
            return FleetStateLocation(url: try await FleetPostgres.freshDatabase(), directory: directory)
        }
    }
}

/// The PostgreSQL the fleet tests use (`ThrowawayPostgres`); each test gets a database of its own, made with
/// `createdb`.
enum FleetPostgres {
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    struct Server: Sendable {
        var user: String
        var host: String
        var port: Int
        /// `createdb` of the installed PostgreSQL.
        var createdb: String
    }

    static let server: Task<Server, any Error> = Task { try server(try await ThrowawayPostgres.url.value, createdb: try createdbPath()) }

    private static let missing = """
        the fleet tests need PostgreSQL: install it (scripts/setup installs the package `postgresql`) or set \
        KB_TEST_POSTGRES_URL to a server whose user may create databases
        """

    /// A new, empty database; its `postgres://` URL for `state.url`.
    static func freshDatabase() async throws -> String {
        let server = try await server.value
        let name = "fleet_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let (status, output) = try run(server.createdb, [
            "--host=\(server.host)", "--port=\(server.port)", "--username=\(server.user)", "--no-password", name,
        ])
        guard status == 0 else { throw Unavailable(description: "createdb \(name) failed (\(status)): \(output)") }
        return "postgres://\(server.user)@\(server.host):\(server.port)/\(name)?sslmode=disable"
    }

    private static func createdbPath() throws -> String {
        let roots = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = roots.compactMap(Int.init).sorted().last
        if let newest, FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(newest)/bin/createdb") {
            return "/usr/lib/postgresql/\(newest)/bin/createdb"
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let path = "\(directory)/createdb"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw Unavailable(description: missing + " (no createdb found)")
    }

    private static func server(_ url: String, createdb: String) throws -> Server {
        guard let components = URLComponents(string: url), components.scheme == "postgres" || components.scheme == "postgresql",
              let user = components.user, let host = components.host
        else {
            throw Unavailable(description: "not a postgres://USER@HOST:PORT/DB URL: \(url)")
        }
        return Server(user: user, host: host, port: components.port ?? 5432, createdb: createdb)
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// What the fleet's configuration turns on, beyond the stand-ins' URLs and the store.
struct FleetSettings: Sendable {
    var cacheSeconds = 300
    /// Kakao OpenID Connect on, with the shared nonce secret.
    var oidc = false
    var requireNonce = true
    /// The unlink webhook on (`kakao.admin_key`), with the hook secret the unlink URL needs.
    var unlink = false
    /// `backend.unlink_url`; nil: the backend stand-in's.
    var unlinkURL: String?
    var unlinkLeaseSeconds = 30
    var unlinkDeadlineMS = 2500
    var linkingByVerifiedEmail = false
    /// Kakao's security events on (`kakao.events.audiences`), told to the backend stand-in's events URL.
    var securityEvents = false
    var userSync = "best_effort"
    var upstreamTimeoutMS = 5000

    /// One secret for every instance, ≥ 32 bytes: a nonce issued by one is good at the others.
    static let nonceSecret = "fleet-nonce-secret-0123456789abcdef-0123456789"

    func yaml(world: TestWorld, stateURL: String) -> String {
        var kakao = """
            kakao:
              app_id: \(TestWorld.appID)
              api_base_url: "\(world.servers.kakao.baseURL)"
              cache_seconds: \(cacheSeconds)
              unlink_lease_seconds: \(unlinkLeaseSeconds)
              unlink_deadline_ms: \(unlinkDeadlineMS)

            """
        if unlink { kakao += "  admin_key: \"\(TestWorld.adminKey)\"\n" }
        if oidc {
            kakao += """
                  oidc:
                    audiences: ["\(OIDC.audience)", "\(OIDC.otherAudience)"]
                    jwks_url: "\(KakaoStandIn.jwksURL(on: world.servers.kakao))"
                    nonce_secret: "\(Self.nonceSecret)"
                    require_nonce: \(requireNonce)

                """
        } else if securityEvents {
            kakao += "  oidc:\n    jwks_url: \"\(KakaoStandIn.jwksURL(on: world.servers.kakao))\"\n"
        }
        if securityEvents { kakao += "  events:\n    audiences: [\"\(SecurityEventsOn.audience)\"]\n" }
        var rest = ""
        if unlink || securityEvents {
            rest += "backend:\n"
            if unlink { rest += "  unlink_url: \"\(unlinkURL ?? BackendStandIn.unlinkURL(on: world.servers.backend))\"\n" }
            if securityEvents { rest += "  events_url: \"\(BackendStandIn.eventsURL(on: world.servers.backend))\"\n" }
            rest += "hook:\n  secret: \"\(TestWorld.hookSecret)\"\n"
        }
        return """
            server:
              host: 127.0.0.1
              port: 0
              shutdown_grace_seconds: 2
            \(kakao)firebase:
              service_account_file: \(world.config.firebase.serviceAccountFile)
              web_api_key: "\(TestWorld.apiKey)"
              identity_toolkit_url: "\(world.servers.identityToolkit.baseURL)"
              securetoken_certs_url: "\(world.config.firebase.securetokenCertsURL)"
              user_sync: \(userSync)
            \(rest)linking:
              by_verified_email: \(linkingByVerifiedEmail)
            upstream:
              timeout_ms: \(upstreamTimeoutMS)
            state:
              url: "\(stateURL)"
            log:
              level: info
              format: json

            """
    }
}

/// One `kakao-bridge serve` of the fleet.
final class FleetInstance: Sendable {
    let name: String
    let process: BridgeProcess
    let port: Int
    private let http: CurlHTTPClient

    private init(name: String, process: BridgeProcess, port: Int, http: CurlHTTPClient) {
        self.name = name
        self.process = process
        self.port = port
        self.http = http
    }

    static func start(_ name: String, configPath: String, http: CurlHTTPClient) async throws -> FleetInstance {
        let process = try BridgeProcess(configPath: configPath)
        do {
            let port = try await process.waitForPort()
            let instance = FleetInstance(name: name, process: process, port: port, http: http)
            try await instance.waitUntilReady()
            return instance
        } catch {
            process.stop()
            throw error
        }
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// `/readyz` 200: the store answers and its tables are there.
    func waitUntilReady(within limit: Duration = .seconds(30)) async throws {
        let start = ContinuousClock.now
        var last = ""
        while ContinuousClock.now - start < limit {
            if let reply = try? await get("/readyz") {
                if reply.status == 200 { return }
                last = "\(reply.status) \(reply.text)"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw HarnessError("\(name) not ready within \(limit) (\(last)); output:\n\(process.lines.suffix(20).joined(separator: "\n"))")
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
        Reply(try await http.execute(CurlHTTP.HTTPRequest(method: .get, url: baseURL + path, headers: headers, timeout: .seconds(20))))
    }

    func exchange(_ token: String) async throws -> Reply {
        try await get("/v1/token-exchange", headers: [("Authorization", "Bearer " + token)])
    }

    func nonce() async throws -> String {
        let reply = try await get("/v1/kakao/nonce")
        guard reply.status == 200, let nonce = reply.json?["nonce"]?.stringValue else {
            throw HarnessError("\(name): GET /v1/kakao/nonce answered \(reply.status): \(reply.text)")
        }
        return nonce
    }

    /// A SET, as Kakao pushes it.
    func postSecurityEvent(_ set: String) async throws -> Reply {
        Reply(try await http.execute(CurlHTTP.HTTPRequest(
            method: .post, url: baseURL + "/v1/kakao/events", headers: [("Content-Type", "application/secevent+jwt")],
            body: Array(set.utf8), timeout: .seconds(20)
        )))
    }

    /// `POST /v1/users/delete` with the hook secret (docs/api.md#deleting-an-account).
    func deleteUser(_ uid: String) async throws -> Reply {
        Reply(try await http.execute(CurlHTTP.HTTPRequest(
            method: .post, url: baseURL + "/v1/users/delete",
            headers: [("Authorization", "Bearer " + TestWorld.hookSecret), ("Content-Type", "application/json")],
            body: Array(#"{"uid":"\#(uid)"}"#.utf8), timeout: .seconds(20)
        )))
    }

    func unlinkWebhook(userID: Int64, referrer: String = "UNLINK_FROM_APPS") async throws -> Reply {
        try await get(
            "/v1/kakao/unlink?app_id=\(TestWorld.appID)&user_id=\(userID)&referrer_type=\(referrer)",
            headers: [("Authorization", "KakaoAK " + TestWorld.adminKey)]
        )
    }

    /// SIGTERM, and the exit status once it has drained.
    func terminate() async throws -> Int32 {
        process.signal(SIGTERM)
        return try await process.waitForExit()
    }

    func kill() async throws {
        process.signal(SIGKILL)
        _ = try await process.waitForExit()
    }

    func stop() { process.stop() }
}

/// A test world's stand-ins, a store, a configuration file for it, and the instances started on it.
final class Fleet: @unchecked Sendable {
    let world: TestWorld
    let state: FleetStateLocation
    let directory: URL
    let configPath: String
    private let started = Mutex<[FleetInstance]>([])

    private init(world: TestWorld, state: FleetStateLocation, directory: URL, configPath: String) {
        self.world = world
        self.state = state
        self.directory = directory
        self.configPath = configPath
    }

    /// Runs `body` with the stand-ins, a fresh store of `kind` and a configuration file for it; instances are started
    /// by `body` (`start`) and always killed afterwards, the directory removed. One end-to-end world at a time.
    static func with(
        _ kind: FleetStore, _ settings: FleetSettings, world options: TestWorld.Options = .init(), stateURL: String? = nil,
        _ body: (Fleet) async throws -> Void
    ) async throws {
        var options = options
        if settings.unlink { options.unlink = true }
        if settings.securityEvents { options.notifyEvents = true }
        try await TestWorld.with(options) { world in
            let directory = try OpsFiles.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let state = if let stateURL {
                FleetStateLocation(url: stateURL, directory: directory)
            } else {
                try await FleetStateLocation.make(kind, in: directory)
            }
            let configPath = directory.appendingPathComponent("bridge.yaml").path
            // Secrets inside: mode 600, as the service asks of a file with secrets.
            try OpsFiles.writePrivate(settings.yaml(world: world, stateURL: state.url), to: configPath)
            let fleet = Fleet(world: world, state: state, directory: directory, configPath: configPath)
            defer { fleet.stopAll() }
            try await body(fleet)
        }
    }

    /// Starts one more `kakao-bridge serve` on the configuration, ready (`/readyz` 200).
    func start(_ name: String) async throws -> FleetInstance {
        let instance = try await FleetInstance.start(name, configPath: configPath, http: world.http)
        started.withLock { $0.append(instance) }
        return instance
    }

    /// Two instances, started one after the other (the first creates the tables).
    func startTwo() async throws -> (FleetInstance, FleetInstance) {
        let a = try await start("A")
        let b = try await start("B")
        return (a, b)
    }

    func stopAll() {
        for instance in started.withLock({ $0 }) { instance.stop() }
    }

    /// `kakao-bridge unlinks --config PATH`: the pending and failed events, one JSON object per line.
    func unlinks() throws -> [JSONValue] {
        let (status, output) = try FleetPostgres.run(BridgeProcess.executable.path, ["unlinks", "--config", configPath])
        guard status == 0 else { throw HarnessError("kakao-bridge unlinks exited \(status): \(output)") }
        return try output.split(separator: "\n").filter { $0.hasPrefix("{") }.map { line in
            guard let value = JSONValue.parse(Array(line.utf8)) else { throw HarnessError("not JSON: \(line)") }
            return value
        }
    }

    /// An ID token Kakao signs for `user` with `nonce`, issued a few seconds ago.
    func idToken(_ user: StandIns.KakaoAccount = OIDC.user, nonce: String?) throws -> String {
        try world.kakao.issueIDToken(for: user, audience: OIDC.audience, nonce: nonce, issuedAt: Int64(Date().timeIntervalSince1970) - 5)
    }
}

/// Polls `condition` every 50 ms until it holds or `limit` has passed; the time it took, or nil.
@discardableResult
func fleetEventually(within limit: Duration, _ condition: () async throws -> Bool) async throws -> Duration? {
    let start = ContinuousClock.now
    while true {
        if try await condition() { return ContinuousClock.now - start }
        guard ContinuousClock.now - start < limit else { return nil }
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// A backend unlink URL the test switches between hanging (the request is held, never counted, and answered 503 once
/// the test moves on) and accepting (each notice counted): so a notice from an instance that was killed mid-call can
/// never be counted, and the notices counted are exactly those delivered after the recovery.
final class SwitchableUnlinkBackend: Sendable {
    enum Mode: Sendable {
        case hang
        case accept
    }

    private struct State {
        var mode = Mode.hang
        var heldRequests = 0
        var notices: [JSONValue] = []
    }

    let server: StandInServer
    private let state: Mutex<State>

    private init(server: StandInServer) {
        self.server = server
        self.state = Mutex(State())
    }

    var url: String { server.baseURL + BackendStandIn.unlinkPath }
    var heldRequests: Int { state.withLock { $0.heldRequests } }
    var notices: [JSONValue] { state.withLock { $0.notices } }
    func set(_ mode: Mode) { state.withLock { $0.mode = mode } }

    static func start() async throws -> SwitchableUnlinkBackend {
        let box = Box()
        let router = Router()
        router.post(RouterPath(BackendStandIn.unlinkPath)) { request, _ -> Response in
            guard let backend = box.backend else { return Self.answer(503) }
            return try await backend.answer(request)
        }
        let server = try await StandInServer.start(name: "switchable-backend", router: router)
        let backend = SwitchableUnlinkBackend(server: server)
        box.backend = backend
        return backend
    }

    private func answer(_ request: Request) async throws -> Response {
        let arrivedHanging = state.withLock { state -> Bool in
            guard state.mode == .hang else { return false }
            state.heldRequests += 1
            return true
        }
        if arrivedHanging {
            let start = ContinuousClock.now
            while state.withLock({ $0.mode }) == .hang, ContinuousClock.now - start < .seconds(30) {
                try await Task.sleep(for: .milliseconds(50))
            }
            return Self.answer(503)
        }
        guard request.headers[.authorization] == "Bearer \(TestWorld.hookSecret)",
              let body = JSONValue.parse(Array(try await request.body.collect(upTo: 65536).readableBytesView))
        else { return Self.answer(400) }
        state.withLock { $0.notices.append(body) }
        return Self.answer(200)
    }

    private static func answer(_ code: Int) -> Response {
        Response(
            status: .init(code: code), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: #"{"meta":{"code":\#(code)}}"#))
        )
    }

    private final class Box: @unchecked Sendable {
        var backend: SwitchableUnlinkBackend?
    }
}
