import Foundation
import OpenSSLCrypto

/// Mints Firebase custom tokens (contract §4): RS256 over the service account's key, with the audience Identity Toolkit expects.
public struct CustomTokenMinter: Sendable {
    public static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Names Firebase reserves; a claim with one of them would make Identity Toolkit refuse the token.
    static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti", "nbf",
        "nonce", "sub", "user_id",
    ]

    private let account: ServiceAccount
    private let ttlSeconds: Int64
    private let tenantID: String?
    private let clock: UnixClock
    /// The header never changes for one key, so it is encoded once.
    private let encodedHeader: String
    /// So does the payload's start (`iss`, `sub`, `aud`); the rest is written per token, without `JSONEncoder`, in the
    /// order and form `Payload`'s `Encodable` conformance gives.
    private let payloadPrefix: [UInt8]
    private let payloadTenant: [UInt8]

    public init(account: ServiceAccount, ttlSeconds: Int, tenantID: String?, clock: UnixClock = .system) {
        self.account = account
        self.ttlSeconds = Int64(min(max(ttlSeconds, 1), 3600))
        self.tenantID = (tenantID?.isEmpty ?? true) ? nil : tenantID
        self.clock = clock
        let header = #"{"alg":"RS256","typ":"JWT","kid":"# + JSONString.quote(account.privateKeyID) + "}"
        self.encodedHeader = Base64URL.encode(Array(header.utf8))
        let email = JSONString.quote(account.clientEmail)
        self.payloadPrefix = Array((#"{"iss":"# + email + #","sub":"# + email + #","aud":"# + JSONString.quote(Self.audience) + #","iat":"#).utf8)
        self.payloadTenant = self.tenantID.map { Array((#","tenant_id":"# + JSONString.quote($0)).utf8) } ?? []
    }

    public var ttl: Int { Int(ttlSeconds) }

    private struct Payload: Encodable {
        var iss: String
        var sub: String
        var aud: String
        var iat: Int64
        var exp: Int64
        var uid: String
        var claims: Claims
        var tenant_id: String?
    }

    private struct Claims: Encodable {
        var provider: String
        var kakao_id: Int64
    }

    /// - Throws: `CustomTokenError` when the uid breaks §4 or signing fails.
    public func mint(uid: String, kakaoID: Int64) throws(CustomTokenError) -> String {
        guard (1...128).contains(uid.count) else { throw CustomTokenError("uid must be 1 to 128 characters") }
        let now = clock.now()
        let signingInput = encodedHeader + "." + Base64URL.encode(payloadJSON(uid: uid, kakaoID: kakaoID, now: now))
        do {
            let signature = try account.privateKey.signRS256(Array(signingInput.utf8))
            return signingInput + "." + Base64URL.encode(signature)
        } catch {
            throw CustomTokenError("signing failed: \(error)")
        }
    }
}

extension CustomTokenMinter {
    /// The payload as `JSONCoding.encode(Payload(…))` writes it.
    func payloadJSON(uid: String, kakaoID: Int64, now: Int64) -> [UInt8] {
        var json = payloadPrefix
        json.reserveCapacity(payloadPrefix.count + payloadTenant.count + uid.utf8.count + 96)
        json.append(contentsOf: String(now).utf8)
        json.append(contentsOf: #","exp":"#.utf8)
        json.append(contentsOf: String(now + ttlSeconds).utf8)
        json.append(contentsOf: #","uid":"#.utf8)
        json.append(contentsOf: JSONString.quote(uid).utf8)
        json.append(contentsOf: #","claims":{"provider":"kakao","kakao_id":"#.utf8)
        json.append(contentsOf: String(kakaoID).utf8)
        json.append(UInt8(ascii: "}"))
        json.append(contentsOf: payloadTenant)
        json.append(UInt8(ascii: "}"))
        return json
    }

    /// The `Encodable` form the hand-written payload must equal (tests compare them).
    func encodedPayload(uid: String, kakaoID: Int64, now: Int64) throws -> [UInt8] {
        let payload = Payload(
            iss: account.clientEmail, sub: account.clientEmail, aud: Self.audience, iat: now, exp: now + ttlSeconds,
            uid: uid, claims: Claims(provider: "kakao", kakao_id: kakaoID), tenant_id: tenantID
        )
        return Array(try JSONCoding.encode(payload))
    }
}

public struct CustomTokenError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
