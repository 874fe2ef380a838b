import Testing
@testable import Upstreams

/// Naver's unlink callback decoder (docs/api.md#navers-unlink-callback) against a callback made by another
/// implementation: the openssl command line (`openssl md5`, `openssl enc -aes-128-cbc`, `openssl dgst -mac HMAC`).
@Suite struct NaverUnlinkCallbackTests {
    static let callback = NaverUnlinkCallback(clientID: "fuzzClient", clientSecret: "fuzzSecret")
    static let encrypted = "ABEiM0RVZneImaq7zN3u_x_kLrGe9kshdjzBaScBqo0"
    static let signature = "5Fu9gjwekaCG_9FwOlCZwNvuntnWvmgWvGc-2Jh3osY"
    static let form = "clientId=fuzzClient&encryptUniqueId=\(encrypted)&timestamp=1700000000&signature=\(signature)"

    @Test func aCallbackMadeByOpenSSLIsRead() {
        #expect(Self.callback.decryptID(Self.encrypted) == "NaVeR-fuzz-id")
        #expect(Self.callback.check(form: Array(Self.form.utf8), now: 1_700_000_100) == .success(.init(id: "NaVeR-fuzz-id", timestamp: 1_700_000_000)))
        // A padded signature, as some base64url encoders write it, is the same signature.
        #expect(Self.callback.check(form: Array((Self.form + "=").utf8), now: 1_700_000_100) == .success(.init(id: "NaVeR-fuzz-id", timestamp: 1_700_000_000)))
    }

    @Test func eachCheckRefusesForItsOwnReason() {
        #expect(Self.callback.check(form: Array(Self.form.utf8), now: 1_700_000_301) == .failure(.stale))
        #expect(Self.callback.check(form: Array(Self.form.utf8), now: 1_699_999_699) == .failure(.stale))
        let other = NaverUnlinkCallback(clientID: "anotherClient", clientSecret: "fuzzSecret")
        #expect(other.check(form: Array(Self.form.utf8), now: 1_700_000_000) == .failure(.wrongClient))
        let wrongKey = NaverUnlinkCallback(clientID: "fuzzClient", clientSecret: "anotherSecret")
        #expect(wrongKey.check(form: Array(Self.form.utf8), now: 1_700_000_000) == .failure(.badSignature))
        #expect(Self.callback.check(form: Array("clientId=fuzzClient".utf8), now: 1_700_000_000) == .failure(.malformed))
        #expect(Self.callback.check(form: Array(Self.form.replacing("timestamp=1700000000", with: "timestamp=-1").utf8), now: 1) == .failure(.malformed))
        #expect(Self.callback.decryptID("AAAA") == nil)
        #expect(wrongKey.decryptID(Self.encrypted) != "NaVeR-fuzz-id")
    }
}
