import OpenSSLCrypto
import Testing

@Suite struct X509CertificateTests {
    @Test func selfSignedCertificateCarriesTheKey() throws {
        let key = try RSAPrivateKey.generate()
        let pem = try X509Certificate.selfSigned(key: key, commonName: "securetoken.system.gserviceaccount.com", validity: .seconds(86_400))
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"))

        let certificateKey = try RSAPublicKey(certificatePEM: pem)
        #expect(certificateKey.bits == 2048)
        #expect(certificateKey.pem == key.publicKey.pem)
        let message = Array("id token signing input".utf8)
        let signature = try key.signRS256(message)
        #expect(certificateKey.verifyRS256(signature: signature, message: message))

        let notAfter = try X509Certificate.notAfter(certificatePEM: pem)
        let otherPEM = try X509Certificate.selfSigned(key: key, commonName: "x", validity: .seconds(3_600))
        let otherNotAfter = try X509Certificate.notAfter(certificatePEM: otherPEM)
        #expect(abs((notAfter - otherNotAfter) - 82_800) <= 2)
        #expect(notAfter > 1_700_000_000)
    }

    @Test func nonPositiveValidityIsRefused() throws {
        let key = try RSAPrivateKey(pem: Fixtures.rfc7515A2PKCS8)
        #expect(throws: CryptoError.self) {
            try X509Certificate.selfSigned(key: key, commonName: "x", validity: .zero)
        }
    }
}
