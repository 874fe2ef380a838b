import BridgeJSON
import BridgeSupport
import CurlHTTP
import OpenSSLCrypto

/// LINE's ID-token keys (`{line.api_base_url}/oauth2/v2.1/certs`, `{"keys": [{"kid", "kty": "EC", "crv": "P-256", "x",
/// "y", "alg": "ES256", "use": "sig"}]}`): the keys of LINE's ES256 ID tokens (docs/api.md#line-id-tokens), fetched by
/// `KeySetClient` and cached by `KeyCache.lineKeys` as Kakao's keys are.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package enum LineKeysClient {
    // MARK: Configuration and entry point

    package static func live(upstream: Upstream, baseURL: String) -> KeySetClient<P256PublicKey> {
        let url = baseURL.withoutTrailingSlash + certsPath
        return KeySetClient(upstream: upstream, url: url, failures: failures, read: keySet(from:))
    }

    // MARK: Requests

    package static let certsPath = "/oauth2/v2.1/certs"

    // MARK: Answers

    /// Only P-256 keys for ES256 (`kty` EC, `crv` P-256).
    package static func keySet(from response: HTTPResponse) throws(Problem) -> LineKeySet {
        try KeySetClient.jwks(response, source: "LINE's JWKS endpoint", alg: "ES256", unavailable: Problem.lineUnavailable) { jwk in
            guard jwk["kty"]?.stringValue == "EC", jwk["crv"]?.stringValue == "P-256",
                  let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue
            else { return nil }
            return try? P256PublicKey(jwkX: x, y: y)
        }
    }

    // MARK: Failure table (docs/errors.md#from-line)

    /// A GET of a static document: outages and connection errors are retried within the deadline.
    package static let failures = FailureMap("LINE's JWKS endpoint", unavailable: Problem.lineUnavailable, retry: .kakao) { response in
        .init(.lineUnavailable("LINE's JWKS endpoint answered HTTP \(response.status)."), retryable: response.status >= 500)
    }
}
