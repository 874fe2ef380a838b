import BridgeJSON
import BridgeSupport
import CurlHTTP
import OpenSSLCrypto

/// Signs bytes as a service account, without its key (docs/api.md#keyless-signing-on-google-cloud). The real one is
/// `IAMCredentialsClient`; tests pass fakes or the IAM stand-in.
public protocol BlobSigning: Sendable {
    /// The RS256 signature of `bytes` by one of `account`'s Google-managed keys.
    func signBlob(_ bytes: [UInt8], account: String, bearer: String, context: CallContext) async throws(Problem) -> [UInt8]
}

/// The IAM Service Account Credentials API: `POST {iam_credentials_url}/v1/projects/-/serviceAccounts/{email}:signBlob`
/// with `{"payload": <standard base64>}`, as the Firebase Admin SDKs call it when they have no key
/// (docs/api.md#keyless-signing-on-google-cloud).
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct IAMCredentialsClient: BlobSigning {
    /// What a 403 means, nearly always: the account may not sign as itself, or the API is off in its project.
    package static let roleAdvice = "the service account needs the role roles/iam.serviceAccountTokenCreator on itself, "
        + "and its project needs the IAM Service Account Credentials API (iamcredentials.googleapis.com) enabled"

    private let upstream: Upstream
    private let base: String

    package init(upstream: Upstream, baseURL: String) {
        self.upstream = upstream
        self.base = baseURL.withoutTrailingSlash + "/v1/projects/-/serviceAccounts/"
    }

    // MARK: Entry point

    /// Signing has no effect besides the signature: retried once on a connection failure, 500, 502, 503 or 504, as
    /// google-auth's IAM signer retries those (docs/errors.md#keyless-signing).
    package func signBlob(_ bytes: [UInt8], account: String, bearer: String, context: CallContext) async throws(Problem) -> [UInt8] {
        // The account is a checked email (configuration or metadata server): nothing in it can leave the path segment.
        let reply: SignBlobReply = try await upstream.postJSON(
            base + account + ":signBlob", body: SignBlobRequest(payload: bytes), headers: [("Authorization", "Bearer " + bearer)],
            Self.failures, context: context
        )
        return reply.signature
    }

    // MARK: Requests

    package struct SignBlobRequest: JSONWritable {
        package var payload: [UInt8]

        package func write(to writer: inout JSONWriter) {
            writer.openObject()
            writer.key("payload")
            writer.string(Base64Standard.encode(payload))
            writer.closeObject()
        }
    }

    // MARK: Answers

    /// `{"keyId": "…", "signedBlob": "<standard base64>"}`; the key id is not needed (the token names none).
    package struct SignBlobReply: JSONDecodable {
        package var signature: [UInt8]

        package init(json: JSONValue) throws(JSONMismatch) {
            guard let signature = Base64Standard.decode(try json.required("signedBlob", \.stringValue)), !signature.isEmpty else {
                throw JSONMismatch()
            }
            self.signature = signature
        }
    }

    // MARK: Failure table (docs/errors.md#keyless-signing)

    package static let retriedStatuses: Set<Int> = [500, 502, 503, 504]

    package static let failures = FailureMap(
        "the IAM Credentials API", unavailable: Problem.iamUnavailable, retry: .google
    ) { response in
        guard (400..<500).contains(response.status) else {
            return .init(
                .iamUnavailable("The IAM Credentials API answered HTTP \(response.status)."),
                retryable: retriedStatuses.contains(response.status)
            )
        }
        let parsed = GoogleErrorCode.parse(response.body)
        var problem = response.status == 403
            ? Problem.iamRejected("The IAM Credentials API refused to sign (HTTP 403, \(parsed.summary)): \(roleAdvice).")
            : Problem.iamRejected("The IAM Credentials API refused to sign (HTTP \(response.status)): \(parsed.summary).")
        problem.upstreamMessage = parsed.message.map(GoogleErrorCode.loggable)
        return .init(problem)
    }
}
