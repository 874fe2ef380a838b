import OpenSSLCrypto
import Testing
import Upstreams

/// `JWTEncoding.split` reads a token in one pass over its bytes: exactly three non-empty base64url segments, the signing
/// input the first two with their dot, nothing more lenient than the split it replaced.
@Suite struct JWTSplitTests {
    let header = Base64URL.encode(#"{"alg":"RS256","kid":"k"}"#)
    let payload = Base64URL.encode(#"{"sub":"1"}"#)
    let signature = Base64URL.encode([1, 2, 3, 4])

    @Test func aWellFormedTokenSplitsIntoItsParts() throws {
        let token = "\(header).\(payload).\(signature)"
        let parts = try #require(JWTEncoding.split(token))
        #expect(parts.header == Array(#"{"alg":"RS256","kid":"k"}"#.utf8))
        #expect(parts.payload == Array(#"{"sub":"1"}"#.utf8))
        #expect(parts.signature == [1, 2, 3, 4])
        #expect(parts.signingInput == Array("\(header).\(payload)".utf8))
    }

    @Test(arguments: [
        "", ".", "..", "...", "a", "a.b", "a.b.", ".b.c", "a..c", "a.b.c.d", "a.b.c.", "\u{00e9}.b.c",
    ])
    func malformedShapesAreRefused(_ shape: String) {
        let segments = ["a": header, "b": payload, "c": signature]
        let token = shape.map { segments[String($0)] ?? String($0) }.joined()
        #expect(JWTEncoding.split(token) == nil)
    }

    @Test func aSegmentOutsideTheAlphabetIsRefused() {
        #expect(JWTEncoding.split("\(header).\(payload)=.\(signature)") == nil)
        #expect(JWTEncoding.split("\(header).\(payload).\(signature)+") == nil)
        #expect(JWTEncoding.split("\(header) .\(payload).\(signature)") == nil)
    }
}
