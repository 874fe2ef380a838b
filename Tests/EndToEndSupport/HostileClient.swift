import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking socket work on a thread of its own: blocking the few threads of Swift's cooperative pool would stall every
/// bridge in the test process, whose handlers run there.
package func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// A TCP client that sends whatever bytes a hostile client would (invalid UTF-8, oversized heads, lies in
/// `Content-Length`), which no well-behaved HTTP client library lets a test do.
package struct HostileClient: Sendable {
    package let fd: Int32

    package struct Answer: @unchecked Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: [UInt8]
        package var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }

        /// The contract's problem shape, as far as a raw reader can check it.
        package var isProblem: Bool {
            headers["content-type"] == "application/problem+json" && json?["status"] as? Int == status
                && json?["code"] is String && json?["request_id"] as? String == headers["x-request-id"]
                && json?["type"] is String && json?["title"] is String && json?["detail"] is String
        }
        package var code: String? { json?["code"] as? String }
    }

    /// `source`: the local address to connect from (any of 127.0.0.0/8 works on Linux's loopback), for tests that need
    /// two client addresses.
    package static func connect(port: Int, from source: String? = nil) throws -> HostileClient {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                Glibc.close(fd)
                throw HarnessError("bind \(source): errno \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw HarnessError("connect: errno \(errno)")
        }
        return HostileClient(fd: fd)
    }

    package func close() { _ = Glibc.close(fd) }

    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool { Self.send(fd, bytes) }

    /// All of `bytes` on `fd`, without SIGPIPE; `false` once the peer is gone. The fault server writes with it too.
    package static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    package func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Whether the server has closed the connection within `timeout` (EOF or reset); discards anything it sent.
    package func isClosed(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(1, (deadline - ContinuousClock.now).components.seconds * 1000
                + (deadline - ContinuousClock.now).components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, remaining) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return true }
        }
        return false
    }

    /// Whether the server has sent something (or closed) that has not been read yet; does not wait.
    package func hasDataWaiting() -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    /// Reads one response (head plus `Content-Length` body), waiting at most `timeout`.
    package func readAnswer(timeout: Duration = .seconds(5)) throws -> Answer {
        var tv = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        func headEnd() -> Int? {
            guard buffer.count >= 4 else { return nil }
            return (0...(buffer.count - 4)).first { buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10 }
        }
        while headEnd() == nil {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { throw HarnessError("connection ended before a response head (\(buffer.count) bytes, recv \(n), errno \(errno))") }
            buffer += chunk[0..<n]
        }
        let end = headEnd()!
        let lines = String(decoding: buffer[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        var body = Array(buffer[(end + 4)...])
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while body.count < length {
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { break }
            body += chunk[0..<n]
        }
        return Answer(status: status, headers: headers, body: body)
    }

    /// One request on a fresh connection.
    package static func exchange(port: Int, _ request: [UInt8], from source: String? = nil, timeout: Duration = .seconds(5)) async throws -> Answer {
        try await offPool {
            let client = try connect(port: port, from: source)
            defer { client.close() }
            client.send(request)
            return try client.readAnswer(timeout: timeout)
        }
    }

    package static func exchange(port: Int, _ request: String, from source: String? = nil, timeout: Duration = .seconds(5)) async throws -> Answer {
        try await exchange(port: port, Array(request.utf8), from: source, timeout: timeout)
    }

    package func answer(timeout: Duration = .seconds(5)) async throws -> Answer {
        try await offPool { try readAnswer(timeout: timeout) }
    }

    package func closed(within timeout: Duration) async throws -> Bool {
        try await offPool { isClosed(within: timeout) }
    }
}
