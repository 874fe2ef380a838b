import Foundation
import OpenSSLCrypto

/// Nonces in the format of docs/api.md#get-v1kakaononce (version, expiry, 16 random bytes, the first 16 bytes of
/// HMAC-SHA256 with `kakao.oidc.nonce_secret`), written here from the documentation, as the stand-ins are: the oidc
/// scenario's ID tokens are signed before the service runs, so they cannot carry nonces it issued, and the benchmark
/// needs the nonce check (and its single use in the state store) on.
enum BenchNonces {
    static func make(secret: [UInt8], expiresAt: Int64) -> String {
        var bytes: [UInt8] = [1]
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(bitPattern: expiresAt) >> UInt64(shift))) }
        bytes += SecureRandom.bytes(count: 16)
        bytes += HMACSHA256.authenticate(key: secret, message: bytes).prefix(16)
        return Base64URL.encode(bytes)
    }
}
