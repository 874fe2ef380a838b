import BridgeJSON
import OpenSSLCrypto

/// The compact serialisation of a JWS: `base64url(header).base64url(payload).base64url(signature)`.
package enum JWTEncoding {
    /// Splits a compact JWS into its three segments and decodes them; `nil` when it is not one.
    package static func split(_ token: String) -> (header: [UInt8], payload: [UInt8], signingInput: [UInt8], signature: [UInt8])? {
        var token = token
        // One pass over the bytes in place: every Kakao ID token and hook call comes through here.
        return token.withUTF8 { bytes -> (header: [UInt8], payload: [UInt8], signingInput: [UInt8], signature: [UInt8])? in
            guard let first = bytes.firstIndex(of: UInt8(ascii: ".")) else { return nil }
            let rest = UnsafeBufferPointer(rebasing: bytes[(first + 1)...])
            guard let second = rest.firstIndex(of: UInt8(ascii: ".")).map({ first + 1 + $0 }),
                  first > 0, second > first + 1, second < bytes.count - 1,
                  !bytes[(second + 1)...].contains(UInt8(ascii: ".")),
                  let header = Base64URL.decode(utf8: UnsafeBufferPointer(rebasing: bytes[..<first])),
                  let payload = Base64URL.decode(utf8: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
                  let signature = Base64URL.decode(utf8: UnsafeBufferPointer(rebasing: bytes[(second + 1)...]))
            else { return nil }
            return (header, payload, Array(UnsafeBufferPointer(rebasing: bytes[..<second])), signature)
        }
    }
}

extension JWTEncoding {
    /// A token the service verifies (a Firebase ID token, a Kakao ID token): split, its header a JSON object that says
    /// RS256. The algorithm is fixed here, by the verifier; the header can only agree with it (no `none`, no HS256 keyed
    /// with a public key). `invalid` makes the problem of the token's kind from a detail that never echoes its values.
    package static func splitRS256(
        _ token: String, invalid: (String) -> Problem
    ) throws(Problem) -> (header: JSONValue, payload: [UInt8], signingInput: [UInt8], signature: [UInt8]) {
        guard let parts = split(token) else {
            // `alg: none` tokens end in an empty signature segment; name the rule they actually break.
            let segments = token.split(separator: ".", omittingEmptySubsequences: false)
            if segments.count == 3, !segments[0].isEmpty, segments[2].isEmpty {
                throw invalid("The ID token is unsigned: alg must be RS256 (alg none is refused).")
            }
            throw invalid("The ID token is not a JWT: it must be three base64url segments.")
        }
        guard let header = JSONValue.parse(parts.header), case .object = header else {
            throw invalid("The ID token's header is not a JSON object.")
        }
        guard header["alg"]?.stringValue == "RS256" else {
            throw invalid("The ID token's header alg must be RS256.")
        }
        return (header, parts.payload, parts.signingInput, parts.signature)
    }
}

extension JWTEncoding {
    /// The header of every JWT the service signs (custom tokens, access-token assertions), base64url-encoded:
    /// `{"alg":"RS256","typ":"JWT","kid":<the service account's private_key_id>}`, or without `kid` when the key is not
    /// known ahead (IAM `signBlob` picks one of the account's Google-managed keys; Google then tries each of them, as
    /// the Admin SDKs rely on: docs/custom-token.md#the-header).
    package static func encodedRS256Header(kid: String?) -> String {
        var header = JSONWriter(capacity: 96)
        header.openObject()
        header.key("alg")
        header.string("RS256")
        header.key("typ")
        header.string("JWT")
        header.member("kid", kid)
        header.closeObject()
        return Base64URL.encode(header.bytes)
    }

    /// The members every JWT the service signs ends its audience and lifetime with, in this order: `aud`, `iat` = now,
    /// `exp` = now + `lifetime` (custom tokens: docs/custom-token.md; access-token assertions: Google's token endpoint).
    package static func writeAudienceAndLifetime(_ json: inout JSONWriter, audience: String, now: Int64, lifetime: Int64) {
        json.key("aud")
        json.string(audience)
        json.key("iat")
        json.int(now)
        json.key("exp")
        json.int(now + lifetime)
    }

    /// `header.payload.signature`, the signature RS256 by `key` over the first two segments.
    package static func signedRS256(encodedHeader: String, payload: [UInt8], key: RSAPrivateKey) throws(CryptoError) -> String {
        let signingInput = encodedHeader + "." + Base64URL.encode(payload)
        return signingInput + "." + Base64URL.encode(try key.signRS256(Array(signingInput.utf8)))
    }
}
