import OpenSSLCrypto
import Testing

@Suite struct PrimitivesTests {
    @Test func sha256KnownVectors() {
        #expect(hex(SHA256.hash([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256.hash(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// RFC 4231 test case 2.
    @Test func hmacSHA256RFC4231Case2() {
        let mac = HMACSHA256.authenticate(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func hmacWithEmptyKeyAndMessage() {
        // Known value of HMAC-SHA256("", "").
        #expect(hex(HMACSHA256.authenticate(key: [], message: []))
            == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func constantTimeEqualsCases() {
        #expect(constantTimeEquals([], []))
        #expect(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(!constantTimeEquals([1, 2], [1, 2, 0]))
        #expect(!constantTimeEquals([], [0]))
    }

    @Test func secureRandomBytes() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        let a = SecureRandom.bytes(count: 32)
        let b = SecureRandom.bytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
    }
}
