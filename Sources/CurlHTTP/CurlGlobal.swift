import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Process-wide curl setup, run by the first client made (on that caller's thread).
enum CurlGlobal {
    /// curl_global_init is not thread-safe and must run once per process; a global `let` gives exactly that.
    static let initialization: HTTPClientError? = {
        scrubEnvironment()
        do throws(HTTPClientError) {
            try CurlCall.check(curl_global_init(kb_curl_global_all()), "curl_global_init")
            return nil
        } catch {
            return error
        }
    }()

    /// Variables under which a libcurl build would write secrets somewhere: `SSLKEYLOGFILE` makes some TLS backends
    /// append every session key to a file, enough to decrypt captured traffic with Google and Kakao.
    static let secretWritingVariables = ["SSLKEYLOGFILE"]

    /// Removes them from the process's environment before curl (or anything else) reads them.
    static func scrubEnvironment() {
        for name in secretWritingVariables { unsetenv(name) }
    }
}
