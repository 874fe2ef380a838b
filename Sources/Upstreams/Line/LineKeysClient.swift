import BridgeJSON
import BridgeSupport
import CurlHTTP
import OpenSSLCrypto

/// LINE's ID-token keys (`{line.api_base_url}/oauth2/v2.1/certs`, `{"keys": [{"kid", "kty": "EC", "crv": "P-256", "x",
/// "y", "alg": "ES256", "use": "sig"}]}`): the keys of LINE's ES256 ID tokens (docs/api.md#line-id-tokens), cached by
/// `KeyCache.lineKeys` as Kakao's keys are.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct LineKeysClient: LineKeySetFetching {
    private let upstream: Upstream
    private let url: String

    package init(upstream: Upstream, baseURL: String) {
        self.upstream = upstream
        self.url = (baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL) + Self.certsPath
    }

    // MARK: Entry point

    package func fetchKeys(context: CallContext) async throws(Problem) -> LineKeySet {
        try Self.keySet(from: try await upstream.call(request, Self.failures, context: context))
    }

    // MARK: Requests

    package static let certsPath = "/oauth2/v2.1/certs"

    private var request: HTTPRequest { HTTPRequest(method: .get, url: url, headers: [("Accept", "application/json")]) }

    // MARK: Answers

    /// Only P-256 signing keys for ES256 are kept (`kty` EC, `crv` P-256; `use`, when present, `sig`; `alg`, when present,
    /// ES256); a key that does not load is skipped. An answer with none is a failure of the endpoint.
    package static func keySet(from response: HTTPResponse) throws(Problem) -> LineKeySet {
        guard let members = JSONValue.parse(response.body)?["keys"]?.arrayValue else {
            throw Problem.lineUnavailable("LINE's JWKS endpoint answered something other than {\"keys\": [...]}.")
        }
        var keys: [String: P256PublicKey] = [:]
        for jwk in members {
            guard jwk["kty"]?.stringValue == "EC", jwk["crv"]?.stringValue == "P-256", let kid = jwk["kid"]?.stringValue, !kid.isEmpty,
                  jwk["use"].map({ $0.stringValue == "sig" }) ?? true, jwk["alg"].map({ $0.stringValue == "ES256" }) ?? true,
                  let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue,
                  let key = try? P256PublicKey(jwkX: x, y: y)
            else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw Problem.lineUnavailable("LINE's JWKS endpoint returned no usable ES256 key.") }
        return LineKeySet(keys: keys, maxAge: CacheControl.freshSeconds(response))
    }

    // MARK: Failure table (docs/errors.md#from-line)

    /// A GET of a static document: outages and connection errors are retried within the deadline.
    package static let failures = FailureMap("LINE's JWKS endpoint", unavailable: Problem.lineUnavailable, retry: .kakao) { response in
        .init(.lineUnavailable("LINE's JWKS endpoint answered HTTP \(response.status)."), retryable: response.status >= 500)
    }
}
