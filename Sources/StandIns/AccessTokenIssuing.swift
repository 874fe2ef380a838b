import OpenSSLCrypto
import Synchronization

/// A stand-in that hands out OAuth 2.0 access tokens: Google's token endpoint (a key file's grant) or the metadata server
/// (the runtime's account). The Admin API stand-in takes a token from either; the IAM stand-in only the metadata
/// server's, as the keyless signer uses no other.
public protocol AccessTokenIssuing: Sendable {
    /// Whether `token` was issued here and has not expired or been revoked.
    func isValid(_ token: String) -> Bool
}

extension GoogleTokenStandIn: AccessTokenIssuing {}

/// The access tokens one issuer handed out, each until its expiry: checked and forgotten alike by both issuers.
final class IssuedTokens: Sendable {
    private let expiries = Mutex<[String: Int64]>([:])
    private let now: @Sendable () -> Int64

    init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    /// A new token of `prefix` and random bytes, live for `lifetime` seconds from now.
    func issue(prefix: String, lifetime: Int64) -> String {
        let token = prefix + Base64URL.encode(SecureRandom.bytes(count: 48))
        let expiry = now() + lifetime
        expiries.withLock { $0[token] = expiry }
        return token
    }

    func isValid(_ token: String) -> Bool {
        let now = self.now()
        return expiries.withLock { $0[token].map { now < $0 } ?? false }
    }

    func revokeAll() { expiries.withLock { $0.removeAll() } }
}
