import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// Mints Firebase custom tokens (docs/custom-token.md): RS256 over the service account's key, with the audience Identity Toolkit expects.
public struct CustomTokenMinter: Sendable {
    public static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Names Firebase reserves; a claim with one of them would make Identity Toolkit refuse the token.
    package static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti", "nbf",
        "nonce", "sub", "user_id",
    ]

    private let account: ServiceAccount
    private let ttlSeconds: Int64
    private let tenantID: String?
    private let clock: UnixClock
    /// The header never changes for one key, so it is encoded once.
    private let encodedHeader: String

    public init(account: ServiceAccount, ttlSeconds: Int, tenantID: String?, clock: UnixClock = .system) {
        self.account = account
        self.ttlSeconds = Int64(min(max(ttlSeconds, 1), 3600))
        self.tenantID = (tenantID?.isEmpty ?? true) ? nil : tenantID
        self.clock = clock
        self.encodedHeader = JWTEncoding.encodedRS256Header(kid: account.privateKeyID)
    }

    public var ttl: Int { Int(ttlSeconds) }

    /// - Throws: `CustomTokenError` when the uid breaks docs/custom-token.md#the-uid or signing fails.
    public func mint(uid: String, kakaoID: Int64) throws(CustomTokenError) -> String {
        guard (1...128).contains(uid.utf16.count) else { throw CustomTokenError("uid must be 1 to 128 UTF-16 code units") }
        let now = clock.now()
        do {
            return try JWTEncoding.signedRS256(
                encodedHeader: encodedHeader, payload: payloadJSON(uid: uid, kakaoID: kakaoID, now: now), key: account.privateKey
            )
        } catch {
            throw CustomTokenError("signing failed: \(error)")
        }
    }

    /// `iss`, `sub`, `aud`, `iat`, `exp`, `uid`, `claims` and, with a tenant, `tenant_id` (docs/custom-token.md).
    package func payloadJSON(uid: String, kakaoID: Int64, now: Int64) -> [UInt8] {
        var json = JSONWriter(capacity: 384)
        json.openObject()
        json.key("iss")
        json.string(account.clientEmail)
        json.key("sub")
        json.string(account.clientEmail)
        json.key("aud")
        json.string(Self.audience)
        json.key("iat")
        json.int(now)
        json.key("exp")
        json.int(now + ttlSeconds)
        json.key("uid")
        json.string(uid)
        json.key("claims")
        json.openObject()
        json.key("provider")
        json.string("kakao")
        json.key("kakao_id")
        json.int(kakaoID)
        json.closeObject()
        json.member("tenant_id", tenantID)
        json.closeObject()
        return json.bytes
    }
}

public struct CustomTokenError: Error, Sendable, CustomStringConvertible {
    public let description: String
    package init(_ description: String) { self.description = description }
}
