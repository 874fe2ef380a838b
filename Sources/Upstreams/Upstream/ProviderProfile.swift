import BridgeJSON
import BridgeSupport
import OpenSSLCrypto

/// A provider's verified user (docs/api.md#providers): what the login flow, the user sync, the custom token and the
/// answers need to know of Kakao's, Naver's or LINE's user, and nothing provider-specific beyond it. The answer's
/// provider object is the user written as JSON (`write(to:)`).
public protocol ProviderProfile: Sendable, Equatable, JSONWritable {
    static var provider: Provider { get }
    /// The id as the uid carries it after the prefix: Kakao's number in decimal, Naver's and LINE's string.
    var uidSuffix: String { get }
    /// The Firebase user's `displayName` (Kakao's nickname; Naver's nickname, else its name; LINE's displayName).
    var displayName: String? { get }
    /// The Firebase user's `photoUrl`.
    var photoURL: String? { get }
    /// The email the user sync may write, verified: only Kakao vouches for one (docs/api.md#user-sync). Naver's and
    /// LINE's emails carry no verified flag and never reach Firebase.
    var verifiedEmail: String? { get }
    /// The custom token's and the user record's id claim (`kakao_id`, `naver_id`, `line_id`).
    var claim: ProviderClaim { get }
    /// The key of the user's unlink and change marks (docs/operations.md#shared-state), which the store keeps as 64-bit
    /// numbers: Kakao's id (positive), for the others a digest of their id made negative, so that no mark of theirs is
    /// ever a Kakao user's.
    var markKey: Int64 { get }
}

/// A verified token's user and the seconds its provider still honours it (`nil`: the provider did not say), so that a
/// verification cache never trusts a token past its expiry.
public struct VerifiedProviderToken<User: ProviderProfile>: Sendable {
    public var user: User
    public var expiresIn: Int64?

    public init(user: User, expiresIn: Int64?) {
        self.user = user
        self.expiresIn = expiresIn
    }
}

/// `provider` and the provider's id claim: `{"provider": "naver", "naver_id": "…"}` (docs/custom-token.md).
public struct ProviderClaim: Sendable, Equatable {
    public enum ID: Sendable, Equatable {
        /// Kakao's id, a JSON number as it always was.
        case number(Int64)
        case text(String)
    }

    public var provider: Provider
    public var id: ID

    public init(provider: Provider, id: ID) {
        self.provider = provider
        self.id = id
    }

    /// `kakao_id`, `naver_id`, `line_id`.
    public var idName: String { provider.rawValue + "_id" }

    public var idValue: JSONValue {
        switch id {
        case .number(let number): .int(number)
        case .text(let text): .string(text)
        }
    }

    /// The two members, in the custom token's order.
    public func write(into writer: inout JSONWriter) {
        writer.key("provider")
        writer.string(provider.rawValue)
        writer.key(idName)
        switch id {
        case .number(let number): writer.int(number)
        case .text(let text): writer.string(text)
        }
    }
}

extension ProviderProfile {
    /// For providers whose ids are text: a negative digest, never a Kakao id (those are positive).
    public static func markKey(ofTextID id: String) -> Int64 {
        let digest = SHA256.hash(Array((provider.rawValue + ":" + id).utf8))
        var word: UInt64 = 0
        for byte in digest.prefix(8) { word = word << 8 | UInt64(byte) }
        return -Int64(word & UInt64(Int64.max)) - 1
    }
}
