import BridgeJSON
import BridgeSupport
import CurlHTTP
import OpenSSLCrypto

/// Google's securetoken certificates (`{kid: X.509 PEM}`), the keys that sign Firebase ID tokens (docs/custom-token.md#googles-certificates),
/// fetched by `KeySetClient`.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package enum GoogleCertificatesClient {
    // MARK: Configuration and entry point

    package static func live(upstream: Upstream, url: String) -> KeySetClient<RSAPublicKey> {
        KeySetClient(upstream: upstream, url: url, failures: failures, read: keySet(from:))
    }

    // MARK: Answers

    /// Certificates that do not parse are skipped; an answer with none is a failure of the endpoint.
    package static func keySet(from response: HTTPResponse) throws(Problem) -> PublicKeySet {
        guard let members = JSONValue.parse(response.body)?.objectValue else {
            throw Problem.firebaseUnavailable("Google's certificate endpoint answered something other than a JSON object.")
        }
        var keys: [String: RSAPublicKey] = [:]
        for (kid, value) in members {
            guard let pem = value.stringValue, let key = try? RSAPublicKey(certificatePEM: pem) else { continue }
            keys[kid] = key
        }
        guard !keys.isEmpty else { throw Problem.firebaseUnavailable("Google's certificate endpoint returned no usable certificate.") }
        return PublicKeySet(keys: keys, maxAge: CacheControl.freshSeconds(response))
    }

    // MARK: Failure table (docs/errors.md#from-the-certificate-endpoint)

    package static let failures = FailureMap("Google's certificate endpoint", unavailable: Problem.firebaseUnavailable) { response in
        .init(.firebaseUnavailable("Google's certificate endpoint answered HTTP \(response.status)."))
    }
}
