import BridgeJSON
import OpenSSLCrypto

/// Google's checks on a Firebase custom token, written independently of the bridge's minting code
/// so that a shared mistake cannot make both sides agree.
struct CustomTokenRules: Sendable {
    static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"
    static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase",
        "iat", "iss", "jti", "nbf", "nonce", "sub", "user_id",
    ]
    static let payloadFields: Set<String> = ["iss", "sub", "aud", "iat", "exp", "uid", "claims", "tenant_id"]
    static let maximumFutureIssue: Int64 = 300
    static let maximumLifetime: Int64 = 3600

    struct Rejection: Error {
        var code: String
        var why: String

        static func invalid(_ why: String) -> Rejection { Rejection(code: "INVALID_CUSTOM_TOKEN", why: why) }
        var message: String { "\(code) : \(why)" }
    }

    struct Accepted {
        var uid: String
        var claims: [String: JSONValue]
        var payload: [String: JSONValue]
    }

    /// One public key of the service account. Google publishes every key of an account (the one in a downloaded key
    /// file, and the Google-managed ones IAM `signBlob` signs with) and verifies a custom token against the key its `kid`
    /// names, or, when it names none (the Admin SDKs' keyless tokens), against each in turn.
    struct AccountKey: Sendable {
        /// `nil`: the key's id is not checked (a test that only knows the key).
        var id: String?
        var key: RSAPublicKey
    }

    let serviceAccountEmail: String
    let keys: [AccountKey]
    let tenantID: String?

    func check(_ token: String, now: Int64) -> Result<Accepted, Rejection> {
        Result { () throws(Rejection) in try verify(token, now: now) }
    }

    private func verify(_ token: String, now: Int64) throws(Rejection) -> Accepted {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw .invalid("The custom token format is incorrect: expected 3 segments, got \(segments.count)")
        }
        let headerBytes = try Self.decodeSegment(segments[0], name: "header")
        let payloadBytes = try Self.decodeSegment(segments[1], name: "payload")
        let signature = try Self.decodeSegment(segments[2], name: "signature")
        guard let header = JSONValue.parse(headerBytes)?.objectValue else { throw .invalid("header is not a JSON object") }
        guard let payload = JSONValue.parse(payloadBytes)?.objectValue else { throw .invalid("payload is not a JSON object") }

        guard header["alg"] == .string("RS256") else { throw .invalid("header alg must be RS256") }
        guard header["typ"] == .string("JWT") else { throw .invalid("header typ must be JWT") }
        guard keys.contains(where: { signature.count == $0.key.bits / 8 }) else {
            throw .invalid("signature is not an RS256 signature of the service account's key size")
        }
        let signingInput = Array(segments[0].utf8) + [UInt8(ascii: ".")] + Array(segments[1].utf8)
        guard let signer = keys.first(where: { $0.key.verifyRS256(signature: signature, message: signingInput) }) else {
            throw Rejection(code: "CREDENTIAL_MISMATCH", why: "The custom token corresponds to a different audience or is signed by another key.")
        }
        switch header["kid"] {
        case nil:
            break
        case .string(let kid)? where signer.id == nil || signer.id == kid:
            break
        default:
            throw .invalid("header kid does not name the service account's key")
        }

        if let unknown = payload.keys.sorted().first(where: { !Self.payloadFields.contains($0) }) {
            throw .invalid("unexpected field \(unknown) in the payload")
        }
        guard payload["aud"] == .string(Self.audience) else { throw .invalid("aud must be \(Self.audience)") }
        guard payload["iss"] == .string(serviceAccountEmail) else { throw .invalid("iss must be the service account email") }
        guard payload["sub"] == .string(serviceAccountEmail) else { throw .invalid("sub must be the service account email") }
        guard let iat = payload["iat"]?.intValue else { throw .invalid("iat must be an integer") }
        guard let exp = payload["exp"]?.intValue else { throw .invalid("exp must be an integer") }
        guard iat <= now + Self.maximumFutureIssue else { throw .invalid("iat is in the future") }
        guard exp > now else { throw Rejection(code: "INVALID_CUSTOM_TOKEN", why: "Token expired") }
        guard exp > iat, exp - iat <= Self.maximumLifetime else {
            throw .invalid("exp must be after iat and at most \(Self.maximumLifetime) seconds later")
        }
        guard let uid = payload["uid"]?.stringValue else { throw .invalid("uid must be a string") }
        guard (1...128).contains(uid.count) else { throw .invalid("uid must be 1 to 128 characters") }

        var claims: [String: JSONValue] = [:]
        if let value = payload["claims"] {
            guard let object = value.objectValue else { throw .invalid("claims must be a JSON object") }
            if let reserved = object.keys.sorted().first(where: { Self.reservedClaims.contains($0) }) {
                throw .invalid("claims contain the reserved name \(reserved)")
            }
            guard value.serialized.count <= 1000 else { throw .invalid("claims are longer than 1000 bytes") }
            claims = object
        }

        switch (tenantID, payload["tenant_id"]) {
        case (nil, nil):
            break
        case (let expected?, .string(let actual)?) where actual == expected:
            break
        case (_, let value?) where value.stringValue == nil:
            throw .invalid("tenant_id must be a string")
        default:
            throw Rejection(code: "TENANT_ID_MISMATCH", why: "the custom token's tenant_id does not match the tenant")
        }
        return Accepted(uid: uid, claims: claims, payload: payload)
    }

    /// Unpadded base64url only: a padded or standard-alphabet segment is not a JWS compact segment.
    private static func decodeSegment(_ segment: Substring, name: String) throws(Rejection) -> [UInt8] {
        let isBase64URL = segment.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                true
            default:
                false
            }
        }
        guard !segment.isEmpty || name == "signature", isBase64URL, segment.utf8.count % 4 != 1,
            let bytes = Base64URL.decode(String(segment))
        else {
            throw .invalid("the \(name) segment is not unpadded base64url")
        }
        return bytes
    }
}
