import BridgeJSON
import OpenSSLCrypto

/// The assertion of the RFC 7523 JWT-bearer grant, as Google's auth libraries build it for a service account: header
/// `{"alg":"RS256","typ":"JWT","kid":<private_key_id>}`, payload `iss` = the account's email, `scope`, `aud` = the
/// token endpoint, `iat` = now, `exp` = now + 3600 (Google refuses a longer one). Signed by `OpenSSLCrypto`.
package enum JWTBearerAssertion {
    package static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The scopes the Firebase Admin SDKs ask for user management.
    package static let scope = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/identitytoolkit"
    package static let lifetimeSeconds: Int64 = 3600

    package static func make(for account: ServiceAccount, now: Int64) throws(CustomTokenError) -> String {
        do {
            return try JWTEncoding.signedRS256(
                encodedHeader: JWTEncoding.encodedRS256Header(kid: account.privateKeyID), payload: payload(for: account, now: now),
                key: account.privateKey
            )
        } catch {
            throw CustomTokenError("signing the access-token assertion failed: \(error)")
        }
    }

    package static func payload(for account: ServiceAccount, now: Int64) -> [UInt8] {
        var json = JSONWriter(capacity: 320)
        json.openObject()
        json.key("iss")
        json.string(account.clientEmail)
        json.key("scope")
        json.string(scope)
        json.key("aud")
        json.string(account.tokenURI)
        json.key("iat")
        json.int(now)
        json.key("exp")
        json.int(now + lifetimeSeconds)
        json.closeObject()
        return json.bytes
    }
}
