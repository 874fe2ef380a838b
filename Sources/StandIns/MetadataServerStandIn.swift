import BridgeJSON
import FoundationEssentials
import Hummingbird
import Logging
import OpenSSLCrypto
import Synchronization

/// Google Cloud's metadata server, as a workload on GKE (Workload Identity), Cloud Run or Compute Engine sees it: the
/// default service account's email, the project id and access tokens for that account, under `/computeMetadata/v1/`.
/// As strict as Google's: a request without `Metadata-Flavor: Google`, or with `X-Forwarded-For` (a proxied request),
/// is refused with 403, and every answer carries `Metadata-Flavor: Google`. Written independently of the bridge's code.
public final class MetadataServerStandIn: AccessTokenIssuing {
    public static let emailPath = "/computeMetadata/v1/instance/service-accounts/default/email"
    public static let projectPath = "/computeMetadata/v1/project/project-id"
    public static let tokenPath = "/computeMetadata/v1/instance/service-accounts/default/token"

    private static let flavor = HTTPFields.Element.Name("Metadata-Flavor")!
    private static let forwardedFor = HTTPFields.Element.Name("X-Forwarded-For")!

    public enum Endpoint: Sendable, CaseIterable {
        case email
        case projectID
        case token
    }

    /// The runtime's service account (the one a GKE Kubernetes service account is bound to).
    public let email: String
    public let projectID: String
    /// Seconds a token lives, as the metadata server says in `expires_in`.
    public let tokenLifetime: Int64
    private let now: @Sendable () -> Int64

    private struct State {
        var faults: [Endpoint: FaultSlot<StandInFault>] = [:]
        var calls: [Endpoint: Int] = [:]
        var refusedWithoutFlavor = 0
        var lastRejection: String?
    }

    private let state = Mutex(State())
    private let issued: IssuedTokens

    public init(
        email: String, projectID: String, tokenLifetime: Int64 = 3599,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.email = email
        self.projectID = projectID
        self.tokenLifetime = tokenLifetime
        self.now = now
        self.issued = IssuedTokens(now: now)
    }

    /// `endpoint` nil: every endpoint answers with the fault (`times` answers of each, or for good).
    public func setFault(_ fault: StandInFault?, times: Int? = nil, endpoint: Endpoint? = nil) {
        state.withLock { state in
            for target in endpoint.map({ [$0] }) ?? Endpoint.allCases { state.faults[target, default: FaultSlot()].set(fault, times: times) }
        }
    }

    public func calls(_ endpoint: Endpoint) -> Int { state.withLock { $0.calls[endpoint] ?? 0 } }
    /// Requests refused for want of `Metadata-Flavor: Google` (or for carrying `X-Forwarded-For`).
    public var refusedWithoutFlavor: Int { state.withLock { $0.refusedWithoutFlavor } }
    public var lastRejection: String? { state.withLock { $0.lastRejection } }

    public func isValid(_ token: String) -> Bool {
        issued.isValid(token)
    }

    /// Forgets every token it issued: what a revoked credential looks like to the APIs that check them.
    public func revokeAll() { issued.revokeAll() }

    public func start(logger: Logger? = nil) async throws -> StandInServer {
        let router = Router()
        router.get(RouterPath(Self.emailPath)) { request, _ in try await self.answer(.email, request) }
        router.get(RouterPath(Self.projectPath)) { request, _ in try await self.answer(.projectID, request) }
        router.get(RouterPath(Self.tokenPath)) { request, _ in try await self.answer(.token, request) }
        return try await StandInServer.start(name: "metadata", router: router, logger: logger)
    }

    private func answer(_ endpoint: Endpoint, _ request: Request) async throws -> Response {
        let fault = state.withLock { state in
            state.calls[endpoint, default: 0] += 1
            return state.faults[endpoint]?.take()
        }
        if let replacement = try await fault?.apply() { return replacement }
        // Google's own checks, before anything else: the header a browser or an SSRF cannot set, and no proxy.
        guard request.headers[values: Self.flavor] == ["Google"] else {
            return refuse("Missing required header \"Metadata-Flavor\": \"Google\"")
        }
        guard request.headers[Self.forwardedFor] == nil else {
            return refuse("Requests with X-Forwarded-For are refused")
        }
        switch endpoint {
        case .email: return text(email)
        case .projectID: return text(projectID)
        case .token:
            let token = issued.issue(prefix: "ya29.metadata-", lifetime: tokenLifetime)
            var response = Reply.json(200, [
                "access_token": .string(token), "expires_in": .int(tokenLifetime), "token_type": .string("Bearer"),
            ], contentType: "application/json")
            response.headers[Self.flavor] = "Google"
            return response
        }
    }

    private func text(_ value: String) -> Response {
        var response = Reply.text(200, value, contentType: "application/text")
        response.headers[Self.flavor] = "Google"
        return response
    }

    private func refuse(_ why: String) -> Response {
        state.withLock {
            $0.refusedWithoutFlavor += 1
            $0.lastRejection = why
        }
        var response = Reply.text(403, "<!DOCTYPE html><title>403 Forbidden</title><p>\(why)</p>", contentType: "text/html; charset=UTF-8")
        response.headers[Self.flavor] = "Google"
        return response
    }
}
