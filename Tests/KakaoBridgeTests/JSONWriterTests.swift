import BridgeJSON
import BridgeSupport
import Foundation
@testable import BridgeFeatures
@testable import KakaoBridge
import Logging
import OpenSSLCrypto
import Testing
import Upstreams
import BridgeTestSupport
import EndToEndSupport

/// Every JSON the service writes comes from `JSONWriter`. Each shape is held here against what Foundation's `JSONEncoder`
/// writes for the same content (`Encodable` mirrors that exist only in this file), compared as JSON values.
@Suite struct JSONWriterTests {
    static func expectSame(_ written: [UInt8], _ mirror: some Encodable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let reference = try FoundationJSON.read(encoder.encode(mirror))
        #expect(FoundationJSON.sameValue(try FoundationJSON.read(written), reference), "\(String(decoding: written, as: UTF8.self))", sourceLocation: sourceLocation)
    }

    static let user = KakaoUser(
        id: 9_007_199_254_740_993, nickname: "R\"y\\a\nn \u{1}", email: "a/b@example.com", emailVerified: true,
        profileImageURL: "https://k.kakaocdn.net/dn/x.jpg"
    )
    static let userMirror = UserMirror(
        id: 9_007_199_254_740_993, nickname: "R\"y\\a\nn \u{1}", email: "a/b@example.com", email_verified: true,
        profile_image_url: "https://k.kakaocdn.net/dn/x.jpg"
    )

    @Test func tokenExchangeAnswer() throws {
        let body: JSONValue = ["meta": ["code": 200], "x": [.double(1.5), nil]]
        let response = TokenExchangeResponse(
            uid: "kakao:1", customToken: "a.b.c", customTokenExpiresIn: 3600, kakao: Self.user,
            firebase: FirebaseSession(idToken: "i", refreshToken: "r", expiresIn: 3600, isNewUser: false),
            login: LoginResult(status: 200, body: body)
        )
        try Self.expectSame(response.jsonBytes, ExchangeMirror(
            uid: "kakao:1", custom_token: "a.b.c", custom_token_expires_in: 3600, kakao: Self.userMirror,
            firebase: .init(id_token: "i", refresh_token: "r", expires_in: 3600, is_new_user: false),
            login: .init(status: 200, body: .init(meta: .init(code: 200), x: [1.5, nil]))
        ))
        // Fields Kakao did not return are omitted, not null.
        #expect(String(decoding: KakaoUser(id: 5).jsonBytes, as: UTF8.self) == #"{"id":5}"#)
        let bare = TokenExchangeResponse(uid: "kakao:5", customToken: "t", customTokenExpiresIn: 60, kakao: KakaoUser(id: 5))
        #expect(JSONValue.parse(bare.jsonBytes)?["firebase"] == nil)
    }

    @Test func legacyAnswer() throws {
        let reply = LegacyController.Reply(data: [.init(token: "c.t.s", kakao_token: "k")])
        try Self.expectSame(reply.jsonBytes, ["data": [["token": "c.t.s", "kakao_token": "k"]]])
    }

    @Test func hookAnswer() throws {
        let reply = LoginHook.Verified(uid: "kakao:9", kakao: Self.user, claims: ["sub": "kakao:9", "exp": 1_700_000_000])
        try Self.expectSame(reply.jsonBytes, HookMirror(uid: "kakao:9", kakao: Self.userMirror, claims: .init(sub: "kakao:9", exp: 1_700_000_000)))
    }

    @Test func problemBody() throws {
        var problem = ProblemBody(.backendRejected(LoginResult(status: 403, body: "no")), requestID: "r-1")
        try Self.expectSame(problem.jsonBytes, ProblemMirror(
            type: "urn:kakao-bridge:problem:backend_rejected", title: "Backend rejected the login", status: 502,
            detail: "The backend answered 403.", code: "backend_rejected", request_id: "r-1", login: .init(status: 403, body: "no")
        ))
        problem.login = nil
        #expect(JSONValue.parse(problem.jsonBytes)?["login"] == nil)
    }

    @Test func upstreamRequestBodies() throws {
        try Self.expectSame(IdentityToolkitClient.SignInRequest(token: "c.t.s").jsonBytes, SignInMirror(token: "c.t.s", returnSecureToken: true))
        // Exactly the two keys apps in the field send.
        #expect(String(decoding: BackendClient.LoginBody(kakaoToken: "k", idToken: "i").jsonBytes, as: UTF8.self)
            == #"{"kakao_token":"k","token":"i"}"#)
    }

    @Test func customTokenPayload() throws {
        let key = try RSAPrivateKey.generate(bits: 2048)
        let account = ServiceAccount(clientEmail: "sa@p.iam.gserviceaccount.com", privateKeyID: "k1", projectID: "p", privateKey: key)
        for tenant in [nil, "tenant-1"] as [String?] {
            let minter = CustomTokenMinter(account: account, ttlSeconds: 600, tenantID: tenant, clock: .fixed(1_700_000_000))
            try Self.expectSame(minter.payloadJSON(uid: "kakao:123", kakaoID: 123, now: 1_700_000_000), PayloadMirror(
                iss: account.clientEmail, sub: account.clientEmail, aud: CustomTokenMinter.audience, iat: 1_700_000_000,
                exp: 1_700_000_600, uid: "kakao:123", claims: .init(provider: "kakao", kakao_id: 123), tenant_id: tenant
            ))
            let token = try minter.mint(uid: "kakao:123", kakaoID: 123)
            let parts = token.split(separator: ".").map(String.init)
            try Self.expectSame(try #require(Base64URL.decode(parts[0])), ["alg": "RS256", "typ": "JWT", "kid": "k1"])
            let signature = try #require(Base64URL.decode(parts[2]))
            #expect(key.publicKey.verifyRS256(signature: signature, message: Array((parts[0] + "." + parts[1]).utf8)))
        }
    }

    @Test func logLine() throws {
        let sink = LogSink.memory()
        let logger = Logger.bridge(level: "info", format: "json", sink: sink)
        logger.info("hello \"there\"", metadata: ["n": .stringConvertible(5), "list": .array([.string("a/b")]), "map": .dictionary(["k": "v"])])
        let line = try #require(sink.lines.first)
        let value = try FoundationJSON.read(Array(line.utf8))
        #expect(value["message"] == "hello \"there\"")
        #expect(value["n"] == .int(5))
        #expect(value["list"] == ["a/b"])
        #expect(value["map"] == ["k": "v"])
    }
}

// MARK: Foundation's side

struct UserMirror: Encodable {
    var id: Int64
    var nickname: String?
    var email: String?
    var email_verified: Bool?
    var profile_image_url: String?
}

struct ExchangeMirror: Encodable {
    struct Session: Encodable {
        var id_token: String
        var refresh_token: String
        var expires_in: Int
        var is_new_user: Bool
    }
    struct Login: Encodable {
        struct Body: Encodable {
            struct Meta: Encodable { var code: Int }
            var meta: Meta
            var x: [Double?]
        }
        var status: Int
        var body: Body
    }
    var uid: String
    var custom_token: String
    var custom_token_expires_in: Int
    var kakao: UserMirror
    var firebase: Session?
    var login: Login?
}

struct HookMirror: Encodable {
    struct Claims: Encodable {
        var sub: String
        var exp: Int64
    }
    var uid: String
    var kakao: UserMirror
    var claims: Claims
}

struct ProblemMirror: Encodable {
    struct Login: Encodable {
        var status: Int
        var body: String
    }
    var type: String
    var title: String
    var status: Int
    var detail: String
    var code: String
    var request_id: String
    var login: Login?
}

struct SignInMirror: Encodable {
    var token: String
    var returnSecureToken: Bool
}

struct PayloadMirror: Encodable {
    struct Claims: Encodable {
        var provider: String
        var kakao_id: Int64
    }
    var iss: String
    var sub: String
    var aud: String
    var iat: Int64
    var exp: Int64
    var uid: String
    var claims: Claims
    var tenant_id: String?
}
