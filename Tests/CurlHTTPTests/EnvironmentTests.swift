@testable import CurlHTTP
import Glibc
import Testing

@Suite struct EnvironmentTests {
    /// With `SSLKEYLOGFILE` set, some libcurl builds append every TLS session key to that file: enough to decrypt
    /// captured traffic with Google and Kakao. The client removes it before curl reads it.
    @Test func sslKeyLogFileIsRemovedFromTheEnvironment() {
        setenv("SSLKEYLOGFILE", "/tmp/kakao-bridge-keys.log", 1)
        CurlGlobal.scrubEnvironment()
        #expect(getenv("SSLKEYLOGFILE") == nil)
    }
}
