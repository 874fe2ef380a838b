import BridgeFeatures
import BridgeJSON
import BridgeSupport
import CurlHTTP
import Upstreams

/// The parsers that read what strangers send, opened to the libFuzzer targets in `Fuzz/` (and to nothing else: the SPI
/// keeps them out of the public API). Each takes arbitrary bytes and must return without crashing, hanging or leaking.
@_spi(Fuzzing) public enum FuzzEntryPoints {
    /// The ID token path up to the signature: compact-JWS split, header and payload JSON, then the claim rules.
    public static func idToken(_ bytes: UnsafeRawBufferPointer) {
        let token = String(decoding: bytes, as: UTF8.self)
        guard let parts = JWTEncoding.split(token) else { return }
        _ = JSONValue.parse(parts.header)
        guard let payload = JSONValue.parse(parts.payload) else { return }
        try? claimRules.check(payload)
        _ = payload["sub"]?.stringValue
        _ = payload["exp"]?.int64Value
    }

    /// The Kakao ID token path up to the signature (docs/api.md#kakao-id-tokens): compact-JWS split and header rules, the
    /// claim rules, the nonce check; and Kakao's JWKS answer read as a key set.
    public static func kakaoIDToken(_ bytes: UnsafeRawBufferPointer) {
        let token = String(decoding: bytes, as: UTF8.self)
        _ = KakaoCredentialKind(bearer: token)
        if let parsed = try? KakaoIDTokenVerifier.parse(token), let claims = try? kakaoClaimRules.check(parsed.payload) {
            if let nonce = claims.nonce { _ = try? kakaoNonces.check(nonce) }
        }
        _ = try? kakaoNonces.check(token)
        _ = try? KakaoKeysClient.keySet(from: HTTPResponse(status: 200, headers: [], body: Array(bytes)))
    }

    /// Kakao's security event tokens (docs/api.md#kakaos-security-events), what `POST /v1/kakao/events` takes from the
    /// internet: the body read as a SET up to the signature, the claim rules, and each event's action and metric name.
    public static func securityEvent(_ bytes: UnsafeRawBufferPointer) {
        _ = SecurityEventController.isSecurityEventToken(String(decoding: bytes.prefix(64), as: UTF8.self))
        guard let parsed = try? KakaoSecurityEventVerifier.parse(Array(bytes)) else { return }
        guard let token = try? securityEventRules.check(parsed.payload) else { return }
        for (index, event) in token.events.enumerated() {
            _ = AccountAction(eventType: event.type).mark
            _ = AccountAction.metricName(event.type)
            _ = SecurityEventIDs.jti(ofEventID: SecurityEventIDs.eventID(jti: token.jti, index: index))
        }
    }

    /// Naver's unlink callback (docs/api.md#navers-unlink-callback), what `POST /v1/naver/unlink` takes from the
    /// internet: the form read, the signature, client and time checks, the id decrypted (also directly: no mutation gets
    /// past the signature); and `/v1/nid/me`'s answer (the
    /// first byte picks the HTTP status) read as a user or a refusal.
    public static func naverUnlink(_ bytes: UnsafeRawBufferPointer) {
        let body = Array(bytes)
        _ = naverCallback.check(form: body, now: 1_700_000_000)
        _ = naverCallback.decryptID(String(decoding: body, as: UTF8.self))
        let statuses = [200, 401, 403, 429, 500]
        let status = bytes.first.map { statuses[Int($0) % statuses.count] } ?? 200
        let response = HTTPResponse(status: status, headers: [], body: Array(body.dropFirst()))
        if case .answer(let answer) = NaverClient.failures.verdict(.success(response)) { _ = try? NaverClient.user(from: answer) }
    }

    private static let naverCallback = NaverUnlinkCallback(clientID: "fuzzClient", clientSecret: "fuzzSecret")

    /// LINE ID tokens up to the signature (docs/api.md#line-id-tokens): told apart from access tokens by the issuer,
    /// split and header rules (ES256 with a kid, or HS256), the claim rules; and LINE's JWKS answer read as a key set.
    public static func lineIDToken(_ bytes: UnsafeRawBufferPointer) {
        let token = String(decoding: bytes, as: UTF8.self)
        _ = LineIDTokenVerifier.isIDToken(token)
        if let parsed = try? LineIDTokenVerifier.parse(token) { _ = try? lineClaimRules.check(parsed.payload) }
        _ = try? LineKeysClient.keySet(from: HTTPResponse(status: 200, headers: [], body: Array(bytes)))
    }

    private static let lineClaimRules = LineIDTokenClaimRules(channelID: "1657000000", clockSkewSeconds: 0, clock: .system)

    /// Kakao's three answer shapes and the profile the service builds from `/v2/user/me`.
    public static func kakaoReplies(_ bytes: UnsafeRawBufferPointer) {
        _ = try? KakaoTokenInfo(jsonBytes: bytes)
        _ = (try? KakaoMe(jsonBytes: bytes))?.user
        _ = try? KakaoErrorReply(jsonBytes: bytes)
        _ = KakaoClient.failures.verdict(.success(HTTPResponse(status: 401, headers: [], body: Array(bytes))))
    }

    /// Identity Toolkit's answer (first byte picks the HTTP status), the certificate endpoint's answer and
    /// `Cache-Control`, and the backend's answer as passed back to the app.
    public static func googleReplies(_ bytes: UnsafeRawBufferPointer) {
        let statuses = [200, 400, 403, 429, 500, 503]
        let status = bytes.first.map { statuses[Int($0) % statuses.count] } ?? 200
        let body = Array(bytes.dropFirst())
        let response = HTTPResponse(status: status, headers: [], body: body)
        if case .answer(let answer) = IdentityToolkitClient.failures.verdict(.success(response)) {
            _ = try? Upstream.decode(IdentityToolkitClient.SignInReply.self, answer, IdentityToolkitClient.failures)
        }
        _ = IdentityToolkitClient.messageCode(String(decoding: body, as: UTF8.self))
        let cacheControl = String(decoding: body.prefix(64), as: UTF8.self)
        _ = try? GoogleCertificatesClient.keySet(from: HTTPResponse(status: 200, headers: [(name: "cache-control", value: cacheControl)], body: body))
        _ = CacheControl.maxAge(cacheControl)
        _ = BackendClient.body(body).jsonBytes
    }

    /// The configuration loader: YAML, then `BRIDGE_*` overrides taken from the input's last line, then validation.
    public static func config(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        var environment: [String: String] = [:]
        if let split = text.lastIndex(of: "\n"), let equals = text[split...].firstIndex(of: "=") {
            let name = text[text.index(after: split)..<equals]
            environment["BRIDGE_" + name.uppercased()] = String(text[text.index(after: equals)...])
        }
        if let config = try? ConfigLoader.parse(yaml: text, environment: environment) {
            _ = ConfigLoader.validate(config)
        }
    }

    /// The JSON reader itself, round-tripped: what it accepts must serialise and read back to the same value.
    public static func json(_ bytes: UnsafeRawBufferPointer) {
        guard let value = JSONValue.parse(bytes) else { return }
        let written = value.jsonBytes
        guard let again = JSONValue.parse(written) else {
            preconditionFailure("the service cannot read its own JSON")
        }
        precondition(again.sameValue(as: value), "JSON round trip changed the value")
    }

    private static let securityEventRules = SecurityEventClaimRules(
        audiences: ["fuzz-rest-api-key"], maxAgeSeconds: 86_400, clockSkewSeconds: 0, clock: .fixed(1_700_000_000)
    )
    private static let kakaoClaimRules = KakaoIDTokenClaimRules(
        audiences: ["fuzz-native-app-key", "fuzz-js-key"], clockSkewSeconds: 0, clock: .fixed(1_700_000_000)
    )
    private static let kakaoNonces = KakaoNonces(secret: Array("fuzz-nonce-secret-fuzz-nonce-secret".utf8), clock: .fixed(1_700_000_000))

    /// Pure: no key, no HTTP client, no clock but a fixed one.
    private static let claimRules = IDTokenClaimRules(
        projectID: "fuzz-project", tenantID: "", clockSkewSeconds: 0, clock: .fixed(1_700_000_000)
    )
}

extension JSONValue {
    /// Equality up to number representation: `1.0` may come back as the integer `1`.
    fileprivate func sameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Double(a) == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.array(let a), .array(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.sameValue(as: $1) }
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { key, value in b[key].map { value.sameValue(as: $0) } ?? false }
        default: self == other
        }
    }
}
