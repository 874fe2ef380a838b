import BridgeJSON
import OpenSSLCrypto

/// The compact serialisation of a JWS: `base64url(header).base64url(payload).base64url(signature)`.
enum JWTEncoding {
    /// Splits a compact JWS into its three segments and decodes them; `nil` when it is not one.
    static func split(_ token: String) -> (header: [UInt8], payload: [UInt8], signingInput: [UInt8], signature: [UInt8])? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }),
              let header = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
              let payload = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
              let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self))
        else { return nil }
        let signingInput = Array(token.utf8.prefix(parts[0].count + 1 + parts[1].count))
        return (header, payload, signingInput, signature)
    }
}

extension JWTEncoding {
    /// The header of every JWT the service signs (custom tokens, access-token assertions), base64url-encoded:
    /// `{"alg":"RS256","typ":"JWT","kid":<the service account's private_key_id>}`.
    static func encodedRS256Header(kid: String) -> String {
        var header = JSONWriter(capacity: 96)
        header.openObject()
        header.key("alg")
        header.string("RS256")
        header.key("typ")
        header.string("JWT")
        header.key("kid")
        header.string(kid)
        header.closeObject()
        return Base64URL.encode(header.bytes)
    }

    /// `header.payload.signature`, the signature RS256 by `key` over the first two segments.
    static func signedRS256(encodedHeader: String, payload: [UInt8], key: RSAPrivateKey) throws(CryptoError) -> String {
        let signingInput = encodedHeader + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(try key.signRS256(Array(signingInput.utf8)))
    }
}
