import OpenSSLCrypto
import Testing

@Suite struct RSATests {
    /// RFC 7515 A.2: the JWS Signing Input and the published base64url signature (A.2.1).
    static let signingInput = Array(
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
            .utf8
    )
    static let publishedSignature =
        "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    @Test(arguments: ["PKCS#8", "PKCS#1"])
    func rfc7515A2SignatureIsReproducedExactly(format: String) throws {
        let key = try RSAPrivateKey(pem: format == "PKCS#8" ? Fixtures.rfc7515A2PKCS8 : Fixtures.rfc7515A2PKCS1)
        #expect(key.bits == 2048)
        let signature = try key.signRS256(Self.signingInput)
        #expect(Base64URL.encode(signature) == Self.publishedSignature)
    }

    @Test func rfc7515A2SignatureVerifiesAndAFlippedByteDoesNot() throws {
        let publicKey = try RSAPublicKey(pem: Fixtures.rfc7515A2Public)
        let signature = try #require(Base64URL.decode(Self.publishedSignature))
        #expect(publicKey.verifyRS256(signature: signature, message: Self.signingInput))

        var badSignature = signature
        badSignature[17] ^= 0x01
        #expect(!publicKey.verifyRS256(signature: badSignature, message: Self.signingInput))

        var badMessage = Self.signingInput
        badMessage[badMessage.count - 1] ^= 0x01
        #expect(!publicKey.verifyRS256(signature: signature, message: badMessage))

        #expect(!publicKey.verifyRS256(signature: [], message: Self.signingInput))
        #expect(!publicKey.verifyRS256(signature: Array(signature.dropLast()), message: Self.signingInput))
    }

    @Test func derivedPublicKeyMatchesThePublishedOne() throws {
        let key = try RSAPrivateKey(pem: Fixtures.rfc7515A2PKCS1)
        #expect(key.publicKey.pem == (try RSAPublicKey(pem: Fixtures.rfc7515A2Public)).pem)
        #expect(key.publicKey.bits == 2048)
        #expect(!key.publicKey.pem.contains("PRIVATE"))
    }

    @Test func keyBelow2048BitsIsRefusedWithItsSize() {
        do {
            _ = try RSAPrivateKey(pem: Fixtures.rsa1024PKCS8)
            Issue.record("a 1024-bit key was accepted")
        } catch {
            #expect(error.isKeyTooSmall)
            #expect(error.description.contains("1024"))
            #expect(error.description.contains("too small"))
        }
        #expect(throws: CryptoError.self) { try RSAPrivateKey.generate(bits: 1024) }
    }

    @Test func nonRSAKeysAreRefused() {
        do {
            _ = try RSAPrivateKey(pem: Fixtures.ecP256PKCS8)
            Issue.record("an EC private key was accepted")
        } catch {
            #expect(error.isNotRSA)
        }
        do {
            _ = try RSAPublicKey(pem: Fixtures.ecP256Public)
            Issue.record("an EC public key was accepted")
        } catch {
            #expect(error.isNotRSA)
        }
    }

    @Test func generatedKeySignsAndVerifiesAndSurvivesPKCS8RoundTrip() throws {
        let key = try RSAPrivateKey.generate()
        #expect(key.bits == 2048)
        let message = Array("hello, kakao".utf8)
        let signature = try key.signRS256(message)
        #expect(signature.count == 256)
        #expect(key.publicKey.verifyRS256(signature: signature, message: message))

        let pem = key.pkcs8PEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try RSAPrivateKey(pem: pem)
        #expect(try reloaded.signRS256(message) == signature)

        let other = try RSAPrivateKey.generate()
        #expect(!other.publicKey.verifyRS256(signature: signature, message: message))

        let empty = try key.signRS256([])
        #expect(key.publicKey.verifyRS256(signature: empty, message: []))
    }

    @Test func garbagePEMThrowsNamingTheCall() {
        do {
            _ = try RSAPrivateKey(pem: "not a key")
            Issue.record("garbage accepted")
        } catch {
            #expect(error.call == "PEM_read_bio_PrivateKey")
            #expect(!error.reason.isEmpty)
            #expect(error.description.hasPrefix("PEM_read_bio_PrivateKey: "))
        }
        do {
            _ = try RSAPublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
            Issue.record("garbage accepted")
        } catch {
            #expect(error.call == "PEM_read_bio_PUBKEY")
        }
        do {
            _ = try RSAPublicKey(certificatePEM: Fixtures.rfc7515A2Public)
            Issue.record("a public key was accepted as a certificate")
        } catch {
            #expect(error.call == "PEM_read_bio_X509")
        }
    }

    @Test func concurrentSigningWithOneKeyIsSafe() async throws {
        let key = try RSAPrivateKey(pem: Fixtures.rfc7515A2PKCS8)
        let expected = try #require(Base64URL.decode(Self.publishedSignature))
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let signature = try key.signRS256(Self.signingInput)
                    return signature == expected
                        && key.publicKey.verifyRS256(signature: signature, message: Self.signingInput)
                }
            }
            for try await ok in group { #expect(ok) }
        }
    }

    /// Verifications reuse prepared contexts, and one that failed is dropped: good and bad signatures, wrong lengths and
    /// changed messages interleaved from many tasks are each judged on their own, and later good ones still verify.
    @Test func concurrentVerificationsWithBadOnesInterleavedAreEachJudgedRight() async throws {
        let publicKey = try RSAPublicKey(pem: Fixtures.rfc7515A2Public)
        let good = try #require(Base64URL.decode(Self.publishedSignature))
        var flipped = good
        flipped[0] ^= 0x80
        let cases: [(signature: [UInt8], message: [UInt8], valid: Bool)] = [
            (good, Self.signingInput, true),
            (flipped, Self.signingInput, false),
            (Array(good.dropLast()), Self.signingInput, false),
            (good + [0], Self.signingInput, false),
            ([], Self.signingInput, false),
            (good, Self.signingInput + [0x2E], false),
        ]
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for round in 0..<64 {
                let check = cases[round % cases.count]
                group.addTask { publicKey.verifyRS256(signature: check.signature, message: check.message) == check.valid }
            }
            for try await judged in group { #expect(judged) }
        }
        #expect(publicKey.verifyRS256(signature: good, message: Self.signingInput))
    }
}
