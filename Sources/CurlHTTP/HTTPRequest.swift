/// One outgoing HTTP call, described without any libcurl types so callers never import CCurl.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
    }

    public var method: Method
    public var url: String
    /// Kept as ordered pairs: duplicate header names are legal and order can matter upstream.
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// Total deadline for the call, including connecting, queueing behind the per-host limit and reading the reply.
    public var timeout: Duration

    public init(
        method: Method = .get,
        url: String,
        headers: [(String, String)] = [],
        body: [UInt8]? = nil,
        timeout: Duration = .seconds(5)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

extension HTTPRequest {
    /// Refuses what curl would send verbatim and we never want on the wire: header injection and GET bodies.
    func validate() throws(HTTPClientError) {
        if method == .get, body != nil {
            throw HTTPClientError(kind: .invalidRequest, call: "HTTPRequest", message: "a GET request cannot carry a body")
        }
        for (name, value) in headers {
            let nameIsToken = !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
            let valueIsClean = !value.utf8.contains { $0 == 0 || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }
            guard nameIsToken, valueIsClean else {
                throw HTTPClientError(kind: .invalidRequest, call: "HTTPRequest", message: "header \"\(name)\" is not a valid HTTP header")
            }
        }
    }
}

extension HTTPRequest {
    /// `scheme://authority` of the URL: the unit curl keeps connections for, and `OriginQueue` counts slots for.
    var origin: Substring {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return Substring(url) }
        let rest = url[url.index(colon, offsetBy: 3)...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        return url[url.startIndex..<end]
    }
}
