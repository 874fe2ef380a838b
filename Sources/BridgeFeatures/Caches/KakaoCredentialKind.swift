/// What a cached verification was made from. Part of the cache's key (docs/api.md#kakao-id-tokens): a verification of
/// one kind never answers for the other, whatever the two tokens look like.
package enum KakaoCredentialKind: UInt8, Sendable {
    case accessToken = 0x41
    case idToken = 0x49

    /// docs/api.md#get-v1token-exchange: a Bearer value of three dot-separated segments is an ID token; Kakao access
    /// tokens have no dots.
    package init(bearer: String) {
        // Counted over the bytes in place: `String.UTF8View`'s own iterator checks the string's representation at every
        // byte.
        var bearer = bearer
        let dots = bearer.withUTF8 { bytes in
            var dots = 0
            for byte in bytes where byte == UInt8(ascii: ".") { dots += 1 }
            return dots
        }
        self = dots == 2 ? .idToken : .accessToken
    }
}
