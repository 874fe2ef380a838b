public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// A struct rather than an enum so new kinds can be added without breaking callers' switches.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The deadline passed before the reply was complete.
        public static let timeout = Kind("timeout")
        /// The host could not be resolved, reached, or the TLS handshake failed.
        public static let connect = Kind("connect")
        /// The reply body exceeded the client's `maxResponseBytes`.
        public static let responseTooLarge = Kind("responseTooLarge")
        /// The URL's scheme is not http or https.
        public static let protocolNotAllowed = Kind("protocolNotAllowed")
        /// Any other failure while the request was on the wire.
        public static let transfer = Kind("transfer")
        /// The client was shut down before the call finished.
        public static let shutdown = Kind("shutdown")
        /// The request could not be expressed (malformed URL, header with a line break, GET with a body).
        public static let invalidRequest = Kind("invalidRequest")
        /// The awaiting task was cancelled.
        public static let cancelled = Kind("cancelled")

        public var description: String { name }
    }

    public var kind: Kind
    /// The libcurl function that reported the failure, e.g. "curl_multi_info_read".
    public var call: String
    public var message: String

    public init(kind: Kind, call: String, message: String) {
        self.kind = kind
        self.call = call
        self.message = message
    }

    public var description: String { "\(kind) (\(call)): \(message)" }
}

// MARK: failures the client reports itself, not curl

extension HTTPClientError {
    static let clientShutDown = HTTPClientError(kind: .shutdown, call: "CurlHTTPClient.shutdown", message: "the HTTP client was shut down")
    static let taskCancelled = HTTPClientError(kind: .cancelled, call: "curl_multi_remove_handle", message: "the awaiting task was cancelled")
    static let queuedTooLong = HTTPClientError(
        kind: .timeout, call: "curl_multi_add_handle", message: "the deadline passed while waiting for a connection"
    )
}
