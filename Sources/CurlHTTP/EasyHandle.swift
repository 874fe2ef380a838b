import CCurl

/// A reusable curl easy handle and the buffers its callbacks fill.
///
/// **Curl thread only**: it is created, configured, driven and recycled there only, which is why it needs no locking
/// and is not `Sendable`. Configured once and never reset; `prepare` sets everything that differs per request.
final class EasyHandle {
    /// Headers are capped apart from the body so a tiny body cap still admits ordinary headers.
    static let maxHeaderBytes = 256 << 10

    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var body: [UInt8] = []
    private var headers: [(name: String, value: String)] = []
    private var receivedHeaderBytes = 0
    private var maxBytes = 0
    private var capExceeded = false

    init() throws(HTTPClientError) {
        guard let raw = curl_easy_init() else {
            throw HTTPClientError(kind: .transfer, call: "curl_easy_init", message: "could not allocate an easy handle")
        }
        self.raw = raw
        let size = kb_curl_error_size()
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        try configureOnce()
    }

    /// What is the same for every transfer is set once per handle: handles are never reset, so `prepare` only sets
    /// what differs between requests (and sets all of that every time, so nothing leaks from one request to the next).
    private func configureOnce() throws(HTTPClientError) {
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        try set(CURLOPT_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, string: "http,https")
        try set(CURLOPT_FOLLOWLOCATION, long: 0)
        // Signals are process-wide and this runs on a background thread; timeouts come from the multi timers.
        try set(CURLOPT_NOSIGNAL, long: 1)
        // An empty proxy makes curl ignore http_proxy/https_proxy from the environment.
        try set(CURLOPT_PROXY, string: "")
        // CURLOPT_ACCEPT_ENCODING stays unset: no compressed replies, so the cap counts real bytes.

        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_WRITEDATA, pointer: context)
        try CurlCall.check(
            kb_curl_easy_setopt_callback(raw, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                Unmanaged<EasyHandle>.fromOpaque(context!).takeUnretainedValue().receiveBody(data, size * count)
            },
            "curl_easy_setopt(CURLOPT_WRITEFUNCTION)"
        )
        try set(CURLOPT_HEADERDATA, pointer: context)
        try CurlCall.check(
            kb_curl_easy_setopt_callback(raw, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                Unmanaged<EasyHandle>.fromOpaque(context!).takeUnretainedValue().receiveHeader(data, size * count)
            },
            "curl_easy_setopt(CURLOPT_HEADERFUNCTION)"
        )
    }

    deinit {
        curl_easy_cleanup(raw)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    /// Configures the handle for `request`; its live connections and TLS sessions (in the multi handle) are kept.
    func prepare(_ request: HTTPRequest, maxBytes: Int) throws(HTTPClientError) {
        curl_slist_free_all(headerList)
        headerList = nil
        body = []
        headers = []
        receivedHeaderBytes = 0
        capExceeded = false
        errorBuffer[0] = 0
        self.maxBytes = maxBytes

        let deadline = Self.milliseconds(request.timeout)
        try set(CURLOPT_URL, string: request.url)
        try set(CURLOPT_TIMEOUT_MS, long: deadline)
        try set(CURLOPT_CONNECTTIMEOUT_MS, long: deadline)
        // Lets curl refuse a too-large reply from its Content-Length before reading the body.
        try set(CURLOPT_MAXFILESIZE_LARGE, offset: curl_off_t(maxBytes))

        switch request.method {
        case .get:
            try set(CURLOPT_HTTPGET, long: 1)
        case .post:
            let payload = request.body ?? []
            try set(CURLOPT_POST, long: 1)
            try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(payload.count))
            // COPYPOSTFIELDS copies, so the Swift array need not outlive this call.
            let code = payload.withUnsafeBytes { bytes in
                kb_curl_easy_setopt_pointer(raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            try CurlCall.check(code, "curl_easy_setopt(CURLOPT_COPYPOSTFIELDS)")
        }

        // "Expect:" suppresses curl's 100-continue round trip for larger bodies.
        for line in request.headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] {
            guard let appended = curl_slist_append(headerList, line) else {
                throw HTTPClientError(kind: .transfer, call: "curl_slist_append", message: "out of memory")
            }
            headerList = appended
        }
        try CurlCall.check(kb_curl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, headerList), "curl_easy_setopt(CURLOPT_HTTPHEADER)")
    }

    /// Turns the transfer's final code into a response, handing over the buffered body.
    func finish(_ code: CURLcode) -> Result<HTTPResponse, HTTPClientError> {
        defer {
            body = []
            headers = []
        }
        if code != CURLE_OK {
            let detail = String(cString: errorBuffer)
            return .failure(CurlCall.error(code, "curl_multi_info_read", detail: detail, capExceeded: capExceeded))
        }
        var status = 0
        do {
            try CurlCall.check(kb_curl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status), "curl_easy_getinfo(CURLINFO_RESPONSE_CODE)")
        } catch {
            return .failure(error)
        }
        return .success(HTTPResponse(status: status, headers: headers, body: body))
    }

    // MARK: callbacks (run on the curl thread, inside curl_multi_socket_action)

    /// Returning less than `count` makes curl abort with CURLE_WRITE_ERROR, so an oversized body is never buffered.
    private func receiveBody(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard body.count + count <= maxBytes else {
            capExceeded = true
            return 0
        }
        if let data, count > 0 {
            body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        }
        return count
    }

    private func receiveHeader(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        receivedHeaderBytes += count
        guard receivedHeaderBytes <= Self.maxHeaderBytes else {
            capExceeded = true
            return 0
        }
        guard let data, count > 0 else { return count }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
        // A new status line starts a new response (e.g. after a 100 Continue): drop the earlier headers.
        if line.hasPrefix("HTTP/") {
            headers = []
            return count
        }
        guard let colon = line.firstIndex(of: ":") else { return count }
        let name = line[..<colon].utf8.trimmingWhitespace().lowercased()
        let value = line[line.index(after: colon)...].utf8.trimmingWhitespace()
        if !name.isEmpty {
            headers.append((name: name, value: value))
        }
        return count
    }

    // MARK: setopt wrappers, each funnelled through CurlCall

    private func set(_ option: CURLoption, long value: Int) throws(HTTPClientError) {
        try CurlCall.check(kb_curl_easy_setopt_long(raw, option, value), "curl_easy_setopt")
    }

    private func set(_ option: CURLoption, string value: String) throws(HTTPClientError) {
        try CurlCall.check(kb_curl_easy_setopt_string(raw, option, value), "curl_easy_setopt")
    }

    private func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(HTTPClientError) {
        try CurlCall.check(kb_curl_easy_setopt_pointer(raw, option, value), "curl_easy_setopt")
    }

    private func set(_ option: CURLoption, offset value: curl_off_t) throws(HTTPClientError) {
        try CurlCall.check(kb_curl_easy_setopt_off_t(raw, option, value), "curl_easy_setopt")
    }

    /// At least 1 ms, because 0 means "no timeout" to curl.
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        guard !millis.overflow else { return Int.max }
        return max(1, Int(millis.partialValue + attoseconds / 1_000_000_000_000_000))
    }
}

extension Substring.UTF8View {
    /// Byte-wise, because "\r\n" is a single Character and would defeat a Character-based trim.
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: self[first...last], as: UTF8.self)
    }
}
