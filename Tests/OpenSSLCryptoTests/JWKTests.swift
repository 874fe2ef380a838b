import OpenSSLCrypto
import Testing

/// RSA public keys from a JSON Web Key's `n` and `e` (RFC 7518 §6.3.1), as Kakao's JWKS publishes them.
@Suite struct JWKTests {
    /// RFC 7515 A.2's key, whose `n` and `e` the RFC prints.
    static let rfcN =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let rfcE = "AQAB"

    @Test func theRFCKeyVerifiesTheRFCSignature() throws {
        let key = try RSAPublicKey(jwkModulus: Self.rfcN, exponent: Self.rfcE)
        #expect(key.bits == 2048)
        let signature = try #require(Base64URL.decode(RSATests.publishedSignature))
        #expect(key.verifyRS256(signature: signature, message: RSATests.signingInput))
        #expect(key.jwkComponents.n == Self.rfcN)
        #expect(key.jwkComponents.e == Self.rfcE)
    }

    @Test func aGeneratedKeyRoundTripsThroughItsJWK() throws {
        let privateKey = try RSAPrivateKey.generate()
        let (n, e) = privateKey.publicKey.jwkComponents
        let loaded = try RSAPublicKey(jwkModulus: n, exponent: e)
        #expect(loaded.pem == privateKey.publicKey.pem)
        let message = Array("header.payload".utf8)
        #expect(loaded.verifyRS256(signature: try privateKey.signRS256(message), message: message))
        // Padding and a leading zero byte (a signed encoding) name the same key.
        let padded = try RSAPublicKey(jwkModulus: n + "=", exponent: e + "=")
        #expect(padded.pem == loaded.pem)
        let signed = try RSAPublicKey(jwkModulus: Base64URL.encode([0] + Base64URL.decode(n)!), exponent: e)
        #expect(signed.pem == loaded.pem)
    }

    @Test func badComponentsAreRefused() throws {
        #expect(throws: CryptoError.self) { try RSAPublicKey(jwkModulus: "not base64!", exponent: Self.rfcE) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(jwkModulus: "", exponent: Self.rfcE) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(jwkModulus: Self.rfcN, exponent: "") }
        // An even exponent is no RSA key.
        #expect(throws: CryptoError.self) { try RSAPublicKey(jwkModulus: Self.rfcN, exponent: "AQAA") }
        // 1024 bits: too small to trust.
        let short = Base64URL.encode([0xC1] + [UInt8](repeating: 0x35, count: 127))
        let error = try #require(throws: CryptoError.self) { try RSAPublicKey(jwkModulus: short, exponent: Self.rfcE) }
        #expect(error.isKeyTooSmall)
        // Longer than any key anyone publishes.
        let huge = Base64URL.encode([UInt8](repeating: 0xFF, count: 4096))
        #expect(throws: CryptoError.self) { try RSAPublicKey(jwkModulus: huge, exponent: Self.rfcE) }
    }
}
