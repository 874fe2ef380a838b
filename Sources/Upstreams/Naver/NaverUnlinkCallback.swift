import BridgeSupport
import OpenSSLCrypto

/// Naver's unlink callback, "연결 끊기 알림" (docs/api.md#navers-unlink-callback): what Naver posts when a person withdraws
/// consent or deletes their Naver account, read and checked. Pure: no clock, no store, no HTTP (the fuzz target calls it).
///
/// The key is MD5 of the client secret (its 16 bytes); `signature` is base64url(HMAC-SHA256(key,
/// "clientId=…&encryptUniqueId=…&timestamp=…")), compared in constant time; `encryptUniqueId` is base64url(IV ‖
/// AES-128-CBC(key, id)) with PKCS#5 padding. Naver's own sample encodes base64url without padding; a padded value is
/// taken too.
package struct NaverUnlinkCallback: Sendable {
    /// Why a callback was refused: for the log line and the metric, never for the answer, whose detail is the same for
    /// every refusal (a forger learns nothing of which check failed).
    package enum Refusal: String, Error, Sendable, CaseIterable {
        case malformed
        case wrongClient = "wrong_client"
        case badSignature = "bad_signature"
        case stale
        case undecryptable
    }

    /// A callback that passed every check.
    package struct Unlink: Sendable, Equatable {
        /// The person's Naver id, as `/v1/nid/me` names them for this app.
        package var id: String
        package var timestamp: Int64
    }

    /// Naver's clock and ours may differ a little; older is a replay.
    package static let maxAgeSeconds: Int64 = 300
    /// A Naver id is at most 64 characters; with IV and padding the field is far below this.
    private static let maxFieldBytes = 1024

    private let clientID: String
    private let key: [UInt8]

    package init(clientID: String, clientSecret: String) {
        self.clientID = clientID
        self.key = Array(MD5.hash(Array(clientSecret.utf8)).prefix(16))
    }

    /// The form body's fields, in the order the checks need them: the signature first, so that nothing of a forged
    /// callback is decrypted.
    package func check(form body: [UInt8], now: Int64) -> Result<Unlink, Refusal> {
        guard body.count <= 4 * Self.maxFieldBytes else { return .failure(.malformed) }
        let fields = FormCodec.parse(Substring(decoding: body, as: UTF8.self))
        guard let client = fields["clientId"], let encrypted = fields["encryptUniqueId"], let time = fields["timestamp"],
              let signature = fields["signature"], !encrypted.isEmpty, encrypted.utf8.count <= Self.maxFieldBytes,
              signature.utf8.count <= Self.maxFieldBytes, time.utf8.count <= 12,
              !time.isEmpty, time.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let timestamp = Int64(time)
        else { return .failure(.malformed) }
        let signed = "clientId=\(client)&encryptUniqueId=\(encrypted)&timestamp=\(time)"
        let expected = HMACSHA256.authenticate(key: key, message: Array(signed.utf8))
        guard let given = Self.base64URL(signature), constantTimeEquals(given, expected) else { return .failure(.badSignature) }
        guard constantTimeEquals(Array(client.utf8), Array(clientID.utf8)) else { return .failure(.wrongClient) }
        guard abs(now - timestamp) <= Self.maxAgeSeconds else { return .failure(.stale) }
        guard let id = decryptID(encrypted) else { return .failure(.undecryptable) }
        return .success(Unlink(id: id, timestamp: timestamp))
    }

    /// `encryptUniqueId` opened: base64url(IV ‖ ciphertext), AES-128-CBC, PKCS#5, a printable ASCII id of at most 128
    /// bytes; `nil` for anything else. Only ever reached for a signed callback; the fuzz target calls it directly, since
    /// no mutation gets past the signature.
    package func decryptID(_ encrypted: String) -> String? {
        guard encrypted.utf8.count <= Self.maxFieldBytes, let sealed = Self.base64URL(encrypted), sealed.count > AES128CBC.blockBytes,
              let plain = AES128CBC.decrypt(
                key: key, iv: Array(sealed.prefix(AES128CBC.blockBytes)), ciphertext: Array(sealed.dropFirst(AES128CBC.blockBytes))
              ),
              !plain.isEmpty, plain.count <= 128, let id = String(validating: plain, as: UTF8.self),
              id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f })
        else { return nil }
        return id
    }

    private static func base64URL(_ text: String) -> [UInt8]? {
        var text = Substring(text)
        while text.last == "=" { text = text.dropLast() }
        return Base64URL.decode(String(text))
    }
}
