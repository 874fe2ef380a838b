import BridgeSupport
import OpenSSLCrypto
import Upstreams

/// The nonces of `GET /v1/kakao/nonce` (docs/api.md#get-v1kakaononce): self-contained, so issuing one stores nothing.
///
/// A nonce is base64url of `version (1) | expiry (8, big-endian Unix seconds) | random (16) | HMAC-SHA256 (first 16)`, the
/// HMAC over the first 25 bytes with `kakao.oidc.nonce_secret` (or the process's generated key). Checking one is pure: the
/// HMAC says this service issued it, the expiry that it is still good. That it was not used before is the job of
/// `UsedKakaoNonces`, on the exchange only.
package struct KakaoNonces: Sendable {
    static let lifetimeSeconds: Int64 = 600
    private static let version: UInt8 = 1
    private static let randomBytes = 16
    private static let macBytes = 16
    private static let signedBytes = 1 + 8 + randomBytes
    private static let totalBytes = signedBytes + macBytes

    /// A nonce that passed the HMAC and expiry checks: what the single-use memory records.
    package struct Ticket: Sendable, Hashable {
        /// The random part: unique per issued nonce.
        let id: NonceID
        let expiresAt: Int64
    }

    private let secret: [UInt8]
    private let clock: UnixClock

    package init(secret: [UInt8], clock: UnixClock) {
        self.secret = secret
        self.clock = clock
    }

    package func issue() -> (nonce: String, expiresIn: Int64) {
        var bytes: [UInt8] = [Self.version]
        bytes.reserveCapacity(Self.totalBytes)
        let expiresAt = UInt64(bitPattern: clock.now() + Self.lifetimeSeconds)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: expiresAt >> UInt64(shift))) }
        bytes += SecureRandom.bytes(count: Self.randomBytes)
        bytes += HMACSHA256.authenticate(key: secret, message: bytes).prefix(Self.macBytes)
        return (Base64URL.encode(bytes), Self.lifetimeSeconds)
    }

    /// The nonce's ticket, or the rule it breaks. Details never echo the nonce.
    package func check(_ nonce: String) throws(Problem) -> Ticket {
        guard nonce.utf8.count <= 128, let bytes = Base64URL.decode(nonce), bytes.count == Self.totalBytes, bytes[0] == Self.version else {
            throw Problem.invalidKakaoIDToken("The ID token's nonce was not issued by this service (GET /v1/kakao/nonce).")
        }
        let expected = HMACSHA256.authenticate(key: secret, message: Array(bytes[0..<Self.signedBytes])).prefix(Self.macBytes)
        guard constantTimeEquals(Array(bytes[Self.signedBytes...]), Array(expected)) else {
            throw Problem.invalidKakaoIDToken("The ID token's nonce was not issued by this service (GET /v1/kakao/nonce).")
        }
        var expiresAt: UInt64 = 0
        for byte in bytes[1..<9] { expiresAt = expiresAt << 8 | UInt64(byte) }
        let expiry = Int64(bitPattern: expiresAt)
        guard clock.now() < expiry else {
            throw Problem.invalidKakaoIDToken("The ID token's nonce has expired; get a fresh one from GET /v1/kakao/nonce before each login.")
        }
        return Ticket(id: NonceID(bytes[9..<Self.signedBytes]), expiresAt: expiry)
    }
}

/// The 16 random bytes of a nonce as two words: cheap to hash and compare.
struct NonceID: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    init(_ bytes: ArraySlice<UInt8>) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.high = high
        self.low = low
    }

    /// The 16 bytes, as the state store keeps them.
    var bytes: [UInt8] {
        (0..<16).map { index in UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> UInt64(56 - 8 * (index % 8))) }
    }
}
