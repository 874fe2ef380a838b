import FoundationEssentials
import NIOCore
import NIOHTTP1
import NIOPosix

/// Just enough HTTP/1.1 client for the backend stand-in to call the bridge's hook over plain http.
/// One connection per call: the hook is called once per login, and URLSession is unreliable on Linux.
enum HookClient {
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
    }

    enum Failure: Error {
        case unsupportedURL
        case closedBeforeAnswer
    }

    static func post(url: String, headers: [(String, String)], body: [UInt8], timeout: Duration) async throws -> Answer {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host else {
            throw Failure.unsupportedURL
        }
        let port = components.port ?? 80
        var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery {
            target += "?" + query
        }

        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.seconds(5))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        // Closing the channel ends the inbound stream, which turns a stalled hook into `closedBeforeAnswer`.
        let deadline = Task {
            try await Task.sleep(for: timeout)
            channel.channel.close(promise: nil)
        }
        defer { deadline.cancel() }

        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: target)
            head.headers.add(name: "Host", value: components.port == nil ? host : "\(host):\(port)")
            head.headers.add(name: "Content-Length", value: String(body.count))
            head.headers.add(name: "Connection", value: "close")
            for (name, value) in headers {
                head.headers.add(name: name, value: value)
            }
            try await outbound.write(.head(head))
            try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
            try await outbound.write(.end(nil))

            var status = 0
            var collected: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let responseHead):
                    status = Int(responseHead.status.code)
                case .body(let chunk):
                    collected.append(contentsOf: chunk.readableBytesView)
                case .end:
                    return Answer(status: status, body: collected)
                }
            }
            throw Failure.closedBeforeAnswer
        }
    }
}
