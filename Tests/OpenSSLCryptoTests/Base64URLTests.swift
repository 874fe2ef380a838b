import OpenSSLCrypto
import Testing

@Suite struct Base64URLTests {
    /// RFC 4648 §10 vectors, without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
        ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) {
        #expect(Base64URL.encode(plain) == encoded)
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func usesTheURLAlphabet() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test func roundTripsEveryLengthAndByte() {
        for length in 0..<70 {
            let bytes = SecureRandom.bytes(count: length)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
    }

    @Test(arguments: ["Zg==", "Zm8=", "Zm9v+", "Zm9v/w", "Zm 9v", "Zm9v\n", "Z", "Zm9vY", "é", "Zh", "Zm9"])
    func rejectsInvalidInput(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
