import BridgeJSON
import BridgeSupport
import CurlHTTP
import OpenSSLCrypto

/// Kakao's OpenID Connect signing keys (`kakao.oidc.jwks_url`, `{"keys": [{"kid", "kty", "alg", "use", "n", "e"}]}`), the
/// keys of Kakao ID tokens (docs/api.md#kakao-id-tokens). Cached by `PublicKeyCache.kakaoKeys`, like Google's certificates.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct KakaoKeysClient: PublicKeySetFetching {
    private let upstream: Upstream
    private let url: String

    package init(upstream: Upstream, url: String) {
        self.upstream = upstream
        self.url = url
    }

    // MARK: Entry point

    package func fetchKeys(context: CallContext) async throws(Problem) -> PublicKeySet {
        try Self.keySet(from: try await upstream.call(request, Self.failures, context: context))
    }

    // MARK: Requests

    private var request: HTTPRequest { HTTPRequest(method: .get, url: url, headers: [("Accept", "application/json")]) }

    // MARK: Answers

    /// Only RSA signing keys for RS256 are kept (`kty` RSA; `use`, when present, `sig`; `alg`, when present, RS256), each
    /// at least 2048 bits; a key that does not load is skipped. An answer with none is a failure of the endpoint.
    package static func keySet(from response: HTTPResponse) throws(Problem) -> PublicKeySet {
        guard let members = JSONValue.parse(response.body)?["keys"]?.arrayValue else {
            throw Problem.kakaoUnavailable("Kakao's JWKS endpoint answered something other than {\"keys\": [...]}.")
        }
        var keys: [String: RSAPublicKey] = [:]
        for jwk in members {
            guard jwk["kty"]?.stringValue == "RSA", let kid = jwk["kid"]?.stringValue, !kid.isEmpty,
                  jwk["use"].map({ $0.stringValue == "sig" }) ?? true, jwk["alg"].map({ $0.stringValue == "RS256" }) ?? true,
                  let n = jwk["n"]?.stringValue, let e = jwk["e"]?.stringValue,
                  let key = try? RSAPublicKey(jwkModulus: n, exponent: e)
            else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw Problem.kakaoUnavailable("Kakao's JWKS endpoint returned no usable RS256 key.") }
        return PublicKeySet(keys: keys, maxAge: CacheControl.freshSeconds(response))
    }

    // MARK: Failure table (docs/errors.md#from-kakao)

    /// A GET of a static document: outages and connection errors are retried within the deadline.
    package static let failures = FailureMap("Kakao's JWKS endpoint", unavailable: Problem.kakaoUnavailable, retry: .kakao) { response in
        .init(.kakaoUnavailable("Kakao's JWKS endpoint answered HTTP \(response.status)."), retryable: response.status >= 500)
    }
}
