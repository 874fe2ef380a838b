import OpenSSLCrypto
import Testing

/// What Naver's unlink callback and LINE's ID tokens need (docs/api.md#navers-unlink-callback, #line-id-tokens): MD5,
/// AES-128-CBC with PKCS#5 padding, and ES256 with JWS's raw `r ‖ s` signatures.
@Suite struct ProviderCryptoTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    /// RFC 1321's test suite.
    @Test func md5Vectors() {
        #expect(hex(MD5.hash([])) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(hex(MD5.hash(Array("abc".utf8))) == "900150983cd24fb0d6963f7d28e17f72")
    }

    /// RFC 3602 §4, case 1 (one block), then PKCS#5 adds a whole block of padding.
    @Test func aesCBCVectorAndPadding() throws {
        let key = Self.bytes("06a9214036b8a15b512e03d534120006")
        let iv = Self.bytes("3dafba429d9eb430b422da802c9fac41")
        let plain = Array("Single block msg".utf8)
        let sealed = try #require(AES128CBC.encrypt(key: key, iv: iv, plaintext: plain))
        #expect(sealed.count == 32)
        #expect(hex(Array(sealed.prefix(16))) == "e353779c1079aeb82708942dbe77181a")
        #expect(AES128CBC.decrypt(key: key, iv: iv, ciphertext: sealed) == plain)
        // A wrong key fails the padding check (or yields other bytes), never the plaintext.
        #expect(AES128CBC.decrypt(key: Array(repeating: 1, count: 16), iv: iv, ciphertext: sealed) != plain)
        #expect(AES128CBC.decrypt(key: key, iv: iv, ciphertext: Array(sealed.prefix(31))) == nil)
        #expect(AES128CBC.decrypt(key: Array(key.prefix(15)), iv: iv, ciphertext: sealed) == nil)
    }

    @Test func es256SignsAndVerifiesThroughAJWK() throws {
        let key = P256PrivateKey()
        let message = Array("header.payload".utf8)
        let signature = try key.signES256(message)
        #expect(signature.count == 64)
        let (x, y) = key.publicKey.jwkComponents
        let published = try P256PublicKey(jwkX: x, y: y)
        #expect(published.verifyES256(signature: signature, message: message))
        #expect(!published.verifyES256(signature: signature, message: Array("header.payloaD".utf8)))
        var flipped = signature
        flipped[40] ^= 1
        #expect(!published.verifyES256(signature: flipped, message: message))
        #expect(!published.verifyES256(signature: Array(signature.prefix(63)), message: message))
        #expect(!P256PrivateKey().publicKey.verifyES256(signature: signature, message: message))
    }

    /// A signature the openssl command line made (`openssl dgst -sha256 -sign`, its DER turned into `r ‖ s`), with the
    /// key's point as a JWK: the conversion is checked against another implementation, not against itself.
    @Test func anES256SignatureMadeByOpenSSLsCommandLineVerifies() throws {
        let key = try P256PublicKey(jwkX: "SbDToZ8c8i6Nxz2I37jTynkFX7ApC4ywD3Llr5SK95k", y: "zKLkg-bVA-SvcWWXDTkF1StUWvGb9k5mq9T5qLW87p8")
        let signature = try #require(Base64URL.decode("Qq2QMdxPHrvxCcp6CBk_f-LEtZus-womdKBqBw_XiTyDHbVc5MmRqXppvrtkPpxnxs_UNo8F7Chuin0Gi_69ag"))
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJodHRwczovL2FjY2Vzcy5saW5lLm1lIn0".utf8)
        #expect(key.verifyES256(signature: signature, message: message))
        #expect(!key.verifyES256(signature: signature, message: Array(message.dropLast())))
    }

    @Test func aJWKOffTheCurveIsRefused() {
        let zeros = Base64URL.encode(Array(repeating: 0, count: 32))
        #expect(throws: CryptoError.self) { try P256PublicKey(jwkX: zeros, y: zeros) }
        #expect(throws: CryptoError.self) { try P256PublicKey(jwkX: "short", y: zeros) }
    }
}
