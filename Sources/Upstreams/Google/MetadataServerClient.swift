import BridgeJSON
import BridgeSupport
import CurlHTTP

/// What keyless signing asks Google Cloud's metadata server (docs/api.md#keyless-signing-on-google-cloud): the account
/// the service runs as, its project, and access tokens for that account. The real one is `MetadataServerClient`; tests
/// pass fakes or the metadata stand-in.
public protocol MetadataServerCalling: Sendable {
    /// The default service account's email (`firebase.service_account_email` when unset). Never logged.
    func serviceAccountEmail(context: CallContext) async throws(Problem) -> String
    /// The project id (`firebase.project_id` when unset).
    func projectID(context: CallContext) async throws(Problem) -> String
    /// An access token of the default service account, for IAM `signBlob` and the Admin API; `AccessTokenCache` keeps it.
    func accessToken(context: CallContext) async throws(Problem) -> GoogleAccessToken
}

/// Google Cloud's metadata server: `GET {firebase.metadata_url}/computeMetadata/v1/…` with `Metadata-Flavor: Google`, as
/// Google's auth libraries ask it (docs/api.md#keyless-signing-on-google-cloud). Plain HTTP to a link-local address by
/// design; its answers carry `Metadata-Flavor: Google` too, and one without it is not the metadata server's.
///
/// Layout shared by every upstream client: configuration, entry point, requests, answers, failure table.
package struct MetadataServerClient: MetadataServerCalling {
    /// The metadata server refuses any request without it (a browser or a proxied request cannot set it).
    package static let flavor = (name: "Metadata-Flavor", value: "Google")
    package static let emailPath = "/computeMetadata/v1/instance/service-accounts/default/email"
    package static let projectPath = "/computeMetadata/v1/project/project-id"
    package static let tokenPath = "/computeMetadata/v1/instance/service-accounts/default/token"

    private let upstream: Upstream
    private let base: String

    package init(upstream: Upstream, baseURL: String) {
        self.upstream = upstream
        self.base = baseURL.withoutTrailingSlash
    }

    // MARK: Entry point

    /// Every call is a GET without effects: retried once on a connection failure or a 5xx.
    package func serviceAccountEmail(context: CallContext) async throws(Problem) -> String {
        let email = try await text(Self.emailPath, context: context)
        guard ConfigValidation.isServiceAccountEmail(email) else { throw Self.identityFailures.unreadable }
        return email
    }

    package func projectID(context: CallContext) async throws(Problem) -> String {
        let project = try await text(Self.projectPath, context: context)
        guard Self.isProjectID(project) else { throw Self.identityFailures.unreadable }
        return project
    }

    package func accessToken(context: CallContext) async throws(Problem) -> GoogleAccessToken {
        let response = try await upstream.call(request(Self.tokenPath, accept: "application/json"), Self.tokenFailures, context: context)
        guard Self.isFromMetadataServer(response) else { throw Self.tokenFailures.unreadable }
        let reply = try Upstream.decode(GoogleTokenClient.TokenReply.self, response, Self.tokenFailures)
        return GoogleAccessToken(token: reply.accessToken, expiresIn: reply.expiresIn)
    }

    // MARK: Requests

    private func request(_ path: String, accept: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: base + path, headers: [(Self.flavor.name, Self.flavor.value), ("Accept", accept)])
    }

    // MARK: Answers

    /// The email and the project id come as `text/plain`, one value, no newline.
    private func text(_ path: String, context: CallContext) async throws(Problem) -> String {
        let response = try await upstream.call(request(path, accept: "text/plain"), Self.identityFailures, context: context)
        guard Self.isFromMetadataServer(response), response.body.count <= 512 else { throw Self.identityFailures.unreadable }
        return String(decoding: response.body, as: UTF8.self)
    }

    package static func isFromMetadataServer(_ response: HTTPResponse) -> Bool {
        response.headers.contains { $0.name.lowercased() == "metadata-flavor" && $0.value == flavor.value }
    }

    /// Google's project ids: lower-case letters, digits, `-`, and for older domain-scoped ones `example.com:project`.
    package static func isProjectID(_ text: String) -> Bool {
        (1...100).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }
    }

    // MARK: Failure table (docs/errors.md#keyless-signing)

    /// The account and the project, asked before the service is ready: what they fail with goes to the log and `/readyz`.
    package static let identityFailures = failures(rejected: Problem.iamRejected, unavailable: Problem.iamUnavailable)
    /// An access token is the Admin API's credential as much as the signer's: reported as the Admin API's token endpoint
    /// is (docs/errors.md#from-googles-token-endpoint-and-the-admin-api), and turned into `iam_*` by the signer (`Problem.asSigningFailure`).
    package static let tokenFailures = failures(rejected: Problem.firebaseAdminRejected, unavailable: Problem.firebaseAdminUnavailable)

    /// The metadata server's refusals are plain text that may name the account: only the status is passed on.
    private static func failures(
        rejected: @escaping @Sendable (String) -> Problem, unavailable: @escaping @Sendable (String) -> Problem
    ) -> FailureMap {
        FailureMap("the metadata server", unavailable: unavailable, retry: .google) { response in
            guard (400..<500).contains(response.status) else {
                return .init(unavailable("The metadata server answered HTTP \(response.status)."), retryable: true)
            }
            let hint = response.status == 404
                ? " (no service account is attached to this workload: on GKE, the Kubernetes service account needs the iam.gke.io/gcp-service-account annotation)"
                : ""
            return .init(rejected("The metadata server refused the request (HTTP \(response.status))\(hint)."))
        }
    }
}
