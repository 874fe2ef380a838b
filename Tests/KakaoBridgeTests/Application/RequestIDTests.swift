@testable import KakaoBridge
import Testing

/// Ids the service makes for requests that came without a sane `X-Request-ID`: 24 lower-case hex digits, unique.
@Suite struct RequestIDTests {
    @Test func generatedIdsAreTwentyFourHexDigitsAndUnique() {
        let ids = (0..<10_000).map { _ in RequestIDs.generate() }
        for id in ids.prefix(100) {
            #expect(id.utf8.count == 24)
            #expect(id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
            #expect(RequestIDs.sane(id) == id)
        }
        #expect(Set(ids).count == ids.count)
        // One process: the same random part, then the counter.
        #expect(Set(ids.map { $0.prefix(10) }).count == 1)
    }

    @Test func tokenBytesAreB64TokenCharactersOnly() {
        let allowed = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._~+/=".utf8)
        for byte in UInt8.min...UInt8.max {
            #expect(BearerToken.isTokenByte(byte) == allowed.contains(byte), "byte \(byte)")
        }
    }
}
