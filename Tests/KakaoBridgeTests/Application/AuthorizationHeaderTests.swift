import BridgeFeatures
import HTTPTypes
import Hummingbird
@testable import KakaoBridge
import NIOCore
import Testing
import Upstreams

/// The one reader of `Authorization` (RFC 9110 §11.6.2), read over the header's bytes.
@Suite struct AuthorizationHeaderTests {
    static func request(_ authorization: String?) -> Request {
        var fields = HTTPFields()
        if let authorization { fields[.authorization] = authorization }
        let head = HTTPRequest(method: .get, scheme: "http", authority: "bridge", path: "/v1/token-exchange", headerFields: fields)
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    @Test(arguments: [
        ("Bearer abc", AuthorizationHeader.Reading.credentials("abc")),
        ("bearer abc", .credentials("abc")),
        ("BEARER abc", .credentials("abc")),
        ("BeArEr a.b.c", .credentials("a.b.c")),
        ("Bearer   abc  ", .credentials("abc")),
        ("Bearer \tabc\t", .credentials("abc")),
        ("  Bearer abc", .credentials("abc")),
        ("Bearer a b", .credentials("a b")),
        // HTTP trims a field value's trailing whitespace: this is "Bearer".
        ("Bearer    ", .otherScheme),
        ("Bearer", .otherScheme),
        ("Bearer ", .otherScheme),
        ("   ", .otherScheme),
        ("", .otherScheme),
        ("Basic abc", .otherScheme),
        ("Bearerx abc", .otherScheme),
        ("Beare abc", .otherScheme),
        ("Bearer\tabc", .otherScheme),
        ("KakaoAK abc", .otherScheme),
    ])
    func readsBearer(header: String, reading: AuthorizationHeader.Reading) {
        #expect(AuthorizationHeader.read(Self.request(header), scheme: .bearer) == reading)
    }

    @Test func readsTheWebhooksScheme() {
        #expect(AuthorizationHeader.read(Self.request("KakaoAK admin-key"), scheme: .kakaoAK) == .credentials("admin-key"))
        #expect(AuthorizationHeader.read(Self.request("kakaoak admin-key"), scheme: .kakaoAK) == .credentials("admin-key"))
        #expect(AuthorizationHeader.read(Self.request("Bearer admin-key"), scheme: .kakaoAK) == .otherScheme)
        #expect(AuthorizationHeader.read(Self.request(nil), scheme: .kakaoAK) == .missing)
    }

    @Test func aTokenIsB64TokenCharactersOnly() throws {
        let alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._~+/="
        try BearerToken.validate(String(repeating: alphabet, count: 20))
        for bad in ["abc def", "abc\tdef", "abc\u{7F}", "\u{00}abc", "abc\"", "abc,def", "tok\u{E9}n", "토큰", "a\u{80}"] {
            #expect(throws: Problem.self) { try BearerToken.validate(bad) }
        }
        #expect(throws: Problem.self) { try BearerToken.validate("") }
        #expect(throws: Problem.self) { try BearerToken.validate(String(repeating: "a", count: RequestLimits.maxTokenBytes + 1)) }
    }

    @Test func threeSegmentsAreAnIDTokenAndAnythingElseAnAccessToken() {
        #expect(KakaoCredentialKind(bearer: "a.b.c") == .idToken)
        #expect(KakaoCredentialKind(bearer: "..") == .idToken)
        #expect(KakaoCredentialKind(bearer: "abc") == .accessToken)
        #expect(KakaoCredentialKind(bearer: "a.b") == .accessToken)
        #expect(KakaoCredentialKind(bearer: "a.b.c.d") == .accessToken)
    }
}
