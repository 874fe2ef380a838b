import BridgeJSON
import BridgeSupport
import CurlHTTP
import OpenSSLCrypto

/// Kakao's OpenID Connect signing keys (`kakao.oidc.jwks_url`, `{"keys": [{"kid", "kty", "alg", "use", "n", "e"}]}`), the
/// keys of Kakao ID tokens (docs/api.md#kakao-id-tokens). Fetched by `KeySetClient`, cached by `PublicKeyCache.kakaoKeys`,
/// like Google's certificates.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package enum KakaoKeysClient {
    // MARK: Configuration and entry point

    package static func live(upstream: Upstream, url: String) -> KeySetClient<RSAPublicKey> {
        KeySetClient(upstream: upstream, url: url, failures: failures, read: keySet(from:))
    }

    // MARK: Answers

    /// Only RSA keys for RS256 of at least 2048 bits (`RSAPublicKey` refuses smaller ones).
    package static func keySet(from response: HTTPResponse) throws(Problem) -> PublicKeySet {
        try KeySetClient.jwks(response, source: "Kakao's JWKS endpoint", alg: "RS256", unavailable: Problem.kakaoUnavailable) { jwk in
            guard jwk["kty"]?.stringValue == "RSA", let n = jwk["n"]?.stringValue, let e = jwk["e"]?.stringValue else { return nil }
            return try? RSAPublicKey(jwkModulus: n, exponent: e)
        }
    }

    // MARK: Failure table (docs/errors.md#from-kakao)

    /// A GET of a static document: outages and connection errors are retried within the deadline.
    package static let failures = FailureMap("Kakao's JWKS endpoint", unavailable: Problem.kakaoUnavailable, retry: .kakao) { response in
        .init(.kakaoUnavailable("Kakao's JWKS endpoint answered HTTP \(response.status)."), retryable: response.status >= 500)
    }
}
