import Foundation
import Synchronization
import EndToEndSupport
import UpstreamFakes
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 server that misbehaves at the socket level, where a Hummingbird stand-in cannot: it resets or cuts
/// off a reply, trickles it, floods it, or redirects. One thread per connection, every connection closed after one reply.
final class FaultServer: Sendable {
    enum Action: Sendable {
        /// A well-formed reply.
        case respond(status: Int, contentType: String, body: [UInt8])
        /// `Content-Length: 1000`, 100 bytes, then a TCP reset.
        case resetMidBody
        /// `Content-Length: 1000`, 100 bytes, then an orderly close.
        case truncated
        /// Headers at once, then one body byte per `interval`.
        case trickle(interval: Duration)
        /// A reply of `bytes` bytes, with `Content-Length` or chunked (so only the cap can stop it).
        case flood(bytes: Int, chunked: Bool)
        /// `302 Found` to `location`.
        case redirect(location: String)
        /// Closes the connection without a word.
        case hangUp
        /// Exactly these bytes (a whole reply, head included), then close.
        case raw([UInt8])

        static func json(_ status: Int, _ text: String) -> Action {
            .respond(status: status, contentType: "application/json", body: Array(text.utf8))
        }
    }

    /// Decides the action for the `count`-th request (1-based) to `path`.
    typealias Script = @Sendable (_ path: String, _ count: Int) -> Action

    let port: Int
    private let listener: Int32
    private let script: Mutex<Script>
    private let counts = Mutex<[String: Int]>([:])
    private let bytesSent = Atomic<Int>(0)

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Requests seen for `path` (path without the query).
    func calls(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
    var totalCalls: Int { counts.withLock { $0.values.reduce(0, +) } }
    /// Body bytes the kernel accepted, summed over connections: shows whether a flood was cut short by the client.
    var totalBytesSent: Int { bytesSent.load(ordering: .relaxed) }

    /// Replaces the script and forgets the counts, so one server (and one bridge) can play many faults in turn.
    func play(_ script: @escaping Script) {
        self.script.withLock { $0 = script }
        counts.withLock { $0 = [:] }
        bytesSent.store(0, ordering: .relaxed)
    }

    init(_ script: @escaping Script) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 1024) == 0 else {
            close(fd)
            throw HarnessError("bind/listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = fd
        self.script = Mutex(script)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Stops accepting; connections in progress finish on their own threads.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var closed = false
        defer { if !closed { close(fd) } }
        guard let path = readRequest(fd) else { return }
        let count = counts.withLock { counts -> Int in
            counts[path, default: 0] += 1
            return counts[path]!
        }
        let current = script.withLock { $0 }
        switch current(path, count) {
        case .respond(let status, let contentType, let body):
            _ = send(fd, head(status, ["Content-Type: \(contentType)", "Content-Length: \(body.count)"]) + body)
        case .resetMidBody:
            _ = send(fd, head(200, ["Content-Type: application/json", "Content-Length: 1000"]) + Array(repeating: 0x20, count: 100))
            // SO_LINGER 0 turns close() into a RST.
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            close(fd)
            closed = true
        case .truncated:
            _ = send(fd, head(200, ["Content-Type: application/json", "Content-Length: 1000"]) + Array(#"{"id":1"#.utf8))
        case .trickle(let interval):
            guard send(fd, head(200, ["Content-Type: application/json", "Content-Length: 100000"])) else { return }
            for _ in 0..<100_000 {
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
                guard send(fd, [0x20]) else { return }
            }
        case .flood(let bytes, let chunked):
            let headers = chunked ? ["Content-Type: application/json", "Transfer-Encoding: chunked"]
                : ["Content-Type: application/json", "Content-Length: \(bytes)"]
            guard send(fd, head(200, headers)) else { return }
            let block = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
            var remaining = bytes
            while remaining > 0 {
                let piece = Array(block.prefix(remaining))
                let framed = chunked ? Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8) : piece
                guard send(fd, framed) else { return }
                bytesSent.add(piece.count, ordering: .relaxed)
                remaining -= piece.count
            }
            if chunked { _ = send(fd, Array("0\r\n\r\n".utf8)) }
        case .redirect(let location):
            _ = send(fd, head(302, ["Location: \(location)", "Content-Length: 0"]))
        case .hangUp:
            break
        case .raw(let bytes):
            _ = send(fd, bytes)
        }
    }

    private func head(_ status: Int, _ headers: [String]) -> [UInt8] {
        Array((["HTTP/1.1 \(status) X"] + headers + ["Connection: close", "", ""]).joined(separator: "\r\n").utf8)
    }

    /// Reads the head and any `Content-Length` body; returns the path without its query.
    private func readRequest(_ fd: Int32) -> String? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        let terminator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return nil }
            buffer += chunk[0..<n]
            if buffer.count >= 4 {
                headEnd = (0...(buffer.count - 4)).first { Array(buffer[$0..<($0 + 4)]) == terminator }
            }
        }
        let headText = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let lines = headText.components(separatedBy: "\r\n")
        let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        var bodyRead = buffer.count - (headEnd! + 4)
        while bodyRead < length {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { break }
            bodyRead += n
        }
        return String(target.split(separator: "?", maxSplits: 1).first ?? "/")
    }

    /// `false` once the peer is gone.
    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool { HostileClient.send(fd, bytes) }
}

/// Canned Kakao answers for a `FaultServer` that plays Kakao when it is not misbehaving.
enum CannedKakao {
    static let tokenInfoPath = "/v1/user/access_token_info"
    static let userMePath = "/v2/user/me"

    static func tokenInfo(id: Int64 = 1_234_567_890, appID: Int64 = TestWorld.appID) -> FaultServer.Action {
        .json(200, #"{"id":\#(id),"expires_in":21599,"app_id":\#(appID)}"#)
    }

    static func userMe(id: Int64 = 1_234_567_890) -> FaultServer.Action {
        .json(200, #"{"id":\#(id),"kakao_account":{"profile":{"nickname":"Ryan"}}}"#)
    }

    /// Answers like Kakao unless `fault` returns an action for the request.
    static func script(_ fault: @escaping @Sendable (_ path: String, _ count: Int) -> FaultServer.Action?) -> FaultServer.Script {
        { path, count in
            if let action = fault(path, count) { return action }
            return path == tokenInfoPath ? tokenInfo() : userMe()
        }
    }
}

/// Time budgets in the fault tests stretch under sanitizers (`scripts/sanitizers` sets `KAKAO_BRIDGE_TEST_SLOWDOWN`):
/// the tests check that nothing waits for a deadline it should not, not how fast an instrumented build is.
enum TestTiming {
    static let factor: Double = ProcessInfo.processInfo.environment["KAKAO_BRIDGE_TEST_SLOWDOWN"].flatMap(Double.init) ?? 1

    static func budget(_ duration: Duration) -> Duration { duration * factor }
}
