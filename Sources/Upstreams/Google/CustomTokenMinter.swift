import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// Mints Firebase custom tokens (docs/custom-token.md): the payload Identity Toolkit expects, signed RS256 by the
/// configured signer (`CustomTokenSigning`): the key file in this process, or IAM `signBlob`.
public struct CustomTokenMinter: Sendable {
    public static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    /// Names Firebase reserves; a claim with one of them would make Identity Toolkit refuse the token.
    package static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti", "nbf",
        "nonce", "sub", "user_id",
    ]

    private let signer: any CustomTokenSigning
    /// The key-file signer again, unboxed: the in-process path calls it with no existential and no suspension.
    private let keyFile: KeyFileSigner?
    private let ttlSeconds: Int64
    private let tenantID: String?
    private let clock: UnixClock

    public init(signer: any CustomTokenSigning, ttlSeconds: Int, tenantID: String?, clock: UnixClock = .system) {
        self.signer = signer
        self.keyFile = signer as? KeyFileSigner
        self.ttlSeconds = Int64(min(max(ttlSeconds, 1), 3600))
        self.tenantID = (tenantID?.isEmpty ?? true) ? nil : tenantID
        self.clock = clock
    }

    /// `firebase.signer: key_file`.
    public init(account: ServiceAccount, ttlSeconds: Int, tenantID: String?, clock: UnixClock = .system) {
        self.init(signer: KeyFileSigner(account: account), ttlSeconds: ttlSeconds, tenantID: tenantID, clock: clock)
    }

    public var ttl: Int { Int(ttlSeconds) }

    /// Whether `mint(uid:kakaoID:)` can sign here and now (a key file); otherwise signing is a call (`mint(…context:)`).
    public var signsInProcess: Bool { keyFile != nil }

    /// The key file's path: a plain call, as before there was a choice of signer.
    /// - Throws: `CustomTokenError` when the uid breaks docs/custom-token.md#the-uid, signing fails, or the signer is
    ///   not in this process (`signsInProcess` is false).
    public func mint(uid: String, kakaoID: Int64) throws(CustomTokenError) -> String {
        try mint(uid: uid, claim: ProviderClaim(provider: .kakao, id: .number(kakaoID)))
    }

    /// The key file's path for any provider's user: `claims` are `provider` and `<provider>_id` (docs/custom-token.md).
    public func mint(uid: String, claim: ProviderClaim) throws(CustomTokenError) -> String {
        guard let keyFile else { throw CustomTokenError("this signer signs through a call: use mint(uid:kakaoID:context:)") }
        let signingInput = try signingInput(uid: uid, claim: claim, header: keyFile.encodedHeader)
        do {
            return signingInput + "." + Base64URL.encode(try keyFile.sign(Array(signingInput.utf8)))
        } catch {
            throw CustomTokenError("signing failed: \(error)")
        }
    }

    /// Any signer; for IAM one `signBlob` call (docs/api.md#keyless-signing-on-google-cloud).
    /// - Throws: the signer's problem; `not_ready` for a uid that breaks docs/custom-token.md#the-uid (the service makes
    ///   none).
    public func mint(uid: String, kakaoID: Int64, context: CallContext) async throws(Problem) -> String {
        try await mint(uid: uid, claim: ProviderClaim(provider: .kakao, id: .number(kakaoID)), context: context)
    }

    public func mint(uid: String, claim: ProviderClaim, context: CallContext) async throws(Problem) -> String {
        let signingInput: String
        do {
            signingInput = try self.signingInput(uid: uid, claim: claim, header: signer.encodedHeader)
        } catch {
            throw Problem.notReady("The custom token could not be signed.")
        }
        let signature = try await signer.signature(over: Array(signingInput.utf8), context: context)
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// `header.payload`, both base64url.
    private func signingInput(uid: String, claim: ProviderClaim, header: String) throws(CustomTokenError) -> String {
        guard (1...128).contains(uid.utf16.count) else { throw CustomTokenError("uid must be 1 to 128 UTF-16 code units") }
        return header + "." + Base64URL.encode(payloadJSON(uid: uid, claim: claim, now: clock.now()))
    }

    /// `iss`, `sub`, `aud`, `iat`, `exp`, `uid`, `claims` and, with a tenant, `tenant_id` (docs/custom-token.md).
    package func payloadJSON(uid: String, kakaoID: Int64, now: Int64) -> [UInt8] {
        payloadJSON(uid: uid, claim: ProviderClaim(provider: .kakao, id: .number(kakaoID)), now: now)
    }

    package func payloadJSON(uid: String, claim: ProviderClaim, now: Int64) -> [UInt8] {
        let email = keyFile?.accountEmail ?? signer.accountEmail
        var json = JSONWriter(capacity: 384)
        json.openObject()
        json.key("iss")
        json.string(email)
        json.key("sub")
        json.string(email)
        JWTEncoding.writeAudienceAndLifetime(&json, audience: Self.audience, now: now, lifetime: ttlSeconds)
        json.key("uid")
        json.string(uid)
        json.key("claims")
        json.openObject()
        claim.write(into: &json)
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
