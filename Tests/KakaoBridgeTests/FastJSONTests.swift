import Foundation
@testable import KakaoBridge
import OpenSSLCrypto
import Testing

/// The hand-written JSON paths (issue 6) must read and write exactly what `JSONDecoder` and `JSONEncoder` would.
@Suite struct FastJSONTests {
    @Test func parserAgreesWithJSONDecoder() throws {
        let samples = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e\"\\\/\n\t\u00e9\ud83d\ude00"},"f":-12.5e3,"g":9223372036854775807}"#,
            #"  [1, 2.0, -0, 1e2, "x", {}, []]  "#,
            #""plain""#,
            #"{"id":1234567890123456789,"big":12345678901234567890}"#,
        ]
        for sample in samples {
            let fast = try JSONParser.parse(Array(sample.utf8))
            let slow = try JSONDecoder().decode(JSONValue.self, from: Data(sample.utf8))
            #expect(fast == slow, "\(sample)")
        }
    }

    @Test func parserRefusesWhatIsNotJSON() {
        let bad = [
            "", "{", #"{"a":}"#, "[1,]", "01", "1.", "-", #""\x""#, #""\ud800""#, "tru", "{} {}", "\"a\nb\"",
            String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        ]
        for sample in bad {
            #expect(throws: (any Error).self, "\(sample)") { try JSONParser.parse(Array(sample.utf8)) }
        }
        #expect(throws: (any Error).self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }

    @Test func writerAgreesWithJSONEncoder() throws {
        let user = KakaoUser(id: 9_007_199_254_740_993, nickname: "R\"y\\a\nn \u{1}", email: "a/b@example.com", emailVerified: true)
        let response = TokenExchangeResponse(
            uid: "kakao:1", customToken: "a.b.c", customTokenExpiresIn: 3600, kakao: user,
            firebase: FirebaseSession(idToken: "i", refreshToken: "r", expiresIn: 3600, isNewUser: false),
            login: LoginResult(status: 200, body: .object(["meta": .object(["code": .int(200)]), "x": .array([.double(1.5), .null])]))
        )
        let fast = try JSONDecoder().decode(JSONValue.self, from: Data(response.jsonBytes))
        let slow = try JSONDecoder().decode(JSONValue.self, from: JSONCoding.encode(response))
        #expect(fast == slow)
        #expect(String(decoding: KakaoUser(id: 5).jsonBytes, as: UTF8.self) == #"{"id":5}"#)
    }

    @Test func kakaoRepliesReadAsDecodableWould() throws {
        let me = #"{"id":42,"properties":{"nickname":"old"},"kakao_account":{"profile":{"nickname":"Ryan"},"email":"r@e.com","is_email_valid":true,"is_email_verified":true}}"#
        let parsed = try JSONCoding.decode(KakaoMe.self, from: Array(me.utf8))
        #expect(parsed.user == KakaoUser(id: 42, nickname: "Ryan", email: "r@e.com", emailVerified: true))
        #expect(throws: (any Error).self) { try JSONCoding.decode(KakaoMe.self, from: Array(#"{"id":"42"}"#.utf8)) }
        #expect(throws: (any Error).self) {
            try JSONCoding.decode(KakaoMe.self, from: Array(#"{"id":1,"kakao_account":{"email":5}}"#.utf8))
        }
        let info = try JSONCoding.decode(KakaoTokenInfo.self, from: Array(#"{"id":7,"app_id":9,"expires_in":null}"#.utf8))
        #expect(info.id == 7 && info.app_id == 9 && info.expires_in == nil)
        #expect(try JSONCoding.decode(KakaoErrorReply.self, from: Array(#"{"msg":"x","code":-401}"#.utf8)).code == -401)
    }

    @Test func handWrittenPayloadEqualsTheEncodedOne() throws {
        let key = try RSAPrivateKey.generate(bits: 2048)
        let account = ServiceAccount(clientEmail: "sa@p.iam.gserviceaccount.com", privateKeyID: "k1", projectID: "p", privateKey: key)
        for tenant in [nil, "tenant-1"] as [String?] {
            let minter = CustomTokenMinter(account: account, ttlSeconds: 600, tenantID: tenant, clock: .fixed(1_700_000_000))
            // `JSONEncoder` does not keep member order, so the two are compared as JSON, not as bytes.
            let fast = try JSONParser.parse(minter.payloadJSON(uid: "kakao:123", kakaoID: 123, now: 1_700_000_000))
            let slow = try JSONParser.parse(minter.encodedPayload(uid: "kakao:123", kakaoID: 123, now: 1_700_000_000))
            #expect(fast == slow)
            #expect(fast["tenant_id"]?.stringValue == tenant)
            let token = try minter.mint(uid: "kakao:123", kakaoID: 123)
            let parts = token.split(separator: ".").map(String.init)
            let signature = try #require(Base64URL.decode(parts[2]))
            #expect(key.publicKey.verifyRS256(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
        }
    }
}
