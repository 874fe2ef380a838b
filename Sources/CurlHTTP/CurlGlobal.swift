import CCurl

/// Process-wide curl setup, run by the first client made (on that caller's thread).
enum CurlGlobal {
    /// curl_global_init is not thread-safe and must run once per process; a global `let` gives exactly that.
    static let initialization: HTTPClientError? = {
        do throws(HTTPClientError) {
            try CurlCall.check(curl_global_init(kb_curl_global_all()), "curl_global_init")
            return nil
        } catch {
            return error
        }
    }()
}
