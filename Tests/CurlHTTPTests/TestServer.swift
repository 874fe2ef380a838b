import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// Records each request's client port so tests can count the TCP connections the client opened.
struct PeerContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let peerPort: Int?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerPort = source.channel.remoteAddress?.port
    }
}

final class ServerLog: Sendable {
    private let ports = Mutex<Set<Int>>([])
    private let requests = Mutex(0)
    private let bigStreamsCompleted = Mutex(0)

    func record(_ context: PeerContext) {
        requests.withLock { $0 += 1 }
        if let port = context.peerPort { _ = ports.withLock { $0.insert(port) } }
    }

    func bigStreamCompleted() { bigStreamsCompleted.withLock { $0 += 1 } }

    var connectionCount: Int { ports.withLock { $0.count } }
    var requestCount: Int { requests.withLock { $0 } }
    var completedBigStreams: Int { bigStreamsCompleted.withLock { $0 } }
}

struct TestServer {
    let baseURL: String
    let log: ServerLog

    func url(_ path: String) -> String { baseURL + path }
}

/// The /big route streams 5 MB as 80 chunks of 64 KiB, one every `bigChunkInterval`, so reading all of it takes
/// at least 80 intervals while reaching a 1 MiB cap takes about 16: the elapsed time shows where the client stopped.
let bigResponseBytes = 5 << 20
let bigChunkInterval = Duration.milliseconds(25)

private func buildRouter(log: ServerLog) -> Router<PeerContext> {
    let router = Router(context: PeerContext.self)
    router.get("/hello") { _, context in
        log.record(context)
        return Response(
            status: .ok,
            headers: [HTTPField.Name("X-Test-Header")!: "Yes", .contentType: "text/plain"],
            body: .init(byteBuffer: ByteBuffer(string: "hello"))
        )
    }
    router.post("/echo") { request, context in
        log.record(context)
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        let custom = request.headers[HTTPField.Name("x-custom")!] ?? "missing"
        let method = request.method.rawValue
        return Response(
            status: .created,
            headers: [HTTPField.Name("x-echo")!: custom, HTTPField.Name("x-method")!: method],
            body: .init(byteBuffer: body)
        )
    }
    router.get("/status/:code") { _, context in
        log.record(context)
        let code = context.parameters.get("code", as: Int.self) ?? 400
        return Response(status: .init(code: code), body: .init(byteBuffer: ByteBuffer(string: "status \(code)")))
    }
    router.get("/slow") { _, context in
        log.record(context)
        try await Task.sleep(for: .seconds(5))
        return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "late")))
    }
    router.get("/redirect") { _, context in
        log.record(context)
        return Response(status: .found, headers: [.location: "/hello"])
    }
    // Chunked: no Content-Length, so only the client's write cap can stop it.
    router.get("/big") { _, context in
        log.record(context)
        return Response(status: .ok, body: ResponseBody { writer in
            let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 << 10)
            for _ in 0..<(bigResponseBytes / chunk.readableBytes) {
                try await writer.write(chunk)
                try await Task.sleep(for: bigChunkInterval)
            }
            try await writer.finish(nil)
            log.bigStreamCompleted()
        })
    }
    // With Content-Length, curl can refuse before reading any of the body.
    router.get("/big-declared") { _, context in
        log.record(context)
        return Response(status: .ok, body: ResponseBody(contentLength: 4 << 20) { writer in
            let chunk = ByteBuffer(repeating: UInt8(ascii: "y"), count: 64 << 10)
            for _ in 0..<64 {
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        })
    }
    return router
}

/// Runs a real Hummingbird server on 127.0.0.1, port 0, for the duration of `body`.
func withTestServer(_ body: (TestServer) async throws -> Void) async throws {
    let log = ServerLog()
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let app = Application(
        router: buildRouter(log: log),
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in
            portContinuation.yield(channel.localAddress?.port ?? 0)
            portContinuation.finish()
        },
        // Cancelling the server at the end of each test logs at error level; keep test output readable.
        logger: Logger(label: "curl-http-test-server", factory: { _ in SwiftLogNoOpLogHandler() })
    )
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try? await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port != 0 else {
            group.cancelAll()
            throw TestServerError.noPort
        }
        do {
            try await body(TestServer(baseURL: "http://127.0.0.1:\(port)", log: log))
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
    }
}

enum TestServerError: Error {
    case noPort
}
