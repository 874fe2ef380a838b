import BridgeJSON
import CurlHTTP
import OpenSSLCrypto

/// The one client of the key endpoints (Google's securetoken certificates, Kakao's and LINE's JWKS): a GET of a static
/// document, read by the upstream's own folder (`GoogleCertificatesClient`, `KakaoKeysClient`, `LineKeysClient`: how
/// its answer is read, what its failures are) and cached by `KeyCache`.
package struct KeySetClient<Key: Sendable>: Sendable {
    private let upstream: Upstream
    private let url: String
    private let failures: FailureMap
    private let read: @Sendable (HTTPResponse) throws(Problem) -> KeySet<Key>

    package init(
        upstream: Upstream, url: String, failures: FailureMap, read: @escaping @Sendable (HTTPResponse) throws(Problem) -> KeySet<Key>
    ) {
        self.upstream = upstream
        self.url = url
        self.failures = failures
        self.read = read
    }

    package func fetchKeys(context: CallContext) async throws(Problem) -> KeySet<Key> {
        let request = HTTPRequest(method: .get, url: url, headers: [("Accept", "application/json")])
        return try read(try await upstream.call(request, failures, context: context))
    }

    /// A JSON Web Key Set (`{"keys": [...]}`, RFC 7517): the signing keys for `alg` (`use`, when present, `sig`; `alg`,
    /// when present, this one) that `load` accepts, by `kid`; a key that does not load is skipped, and an answer with
    /// none is a failure of the endpoint, reported by `unavailable` with `source` (the endpoint's name) in its detail.
    package static func jwks(
        _ response: HTTPResponse, source: String, alg: String, unavailable: (String) -> Problem, load: (JSONValue) -> Key?
    ) throws(Problem) -> KeySet<Key> {
        guard let members = JSONValue.parse(response.body)?["keys"]?.arrayValue else {
            throw unavailable("\(source) answered something other than {\"keys\": [...]}.")
        }
        var keys: [String: Key] = [:]
        for jwk in members {
            guard let kid = jwk["kid"]?.stringValue, !kid.isEmpty,
                  jwk["use"].map({ $0.stringValue == "sig" }) ?? true, jwk["alg"].map({ $0.stringValue == alg }) ?? true,
                  let key = load(jwk)
            else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw unavailable("\(source) returned no usable \(alg) key.") }
        return KeySet(keys: keys, maxAge: CacheControl.freshSeconds(response))
    }
}

extension KeySetClient: PublicKeySetFetching where Key == RSAPublicKey {}
extension KeySetClient: LineKeySetFetching where Key == P256PublicKey {}
