import BridgeJSON
import CurlHTTP
import FoundationEssentials
import Hummingbird
import OpenSSLCrypto
import Synchronization

/// Kakao's account status change webhook, as Kakao sends it (docs/api.md#kakaos-security-events): a security event
/// token (RFC 8417) signed with Kakao's OpenID Connect key, pushed one per request (RFC 8935) as
/// `application/secevent+jwt`.
public enum KakaoSecurityEventType: String, CaseIterable, Sendable {
    case userUnlinked = "https://schemas.openid.net/secevent/oauth/event-type/user-unlinked"
    case accountPurged = "https://schemas.openid.net/secevent/risc/event-type/account-purged"
    case accountDisabled = "https://schemas.openid.net/secevent/risc/event-type/account-disabled"
    case accountEnabled = "https://schemas.openid.net/secevent/risc/event-type/account-enabled"
    case sessionsRevoked = "https://schemas.openid.net/secevent/risc/event-type/sessions-revoked"
    case credentialCompromise = "https://schemas.openid.net/secevent/risc/event-type/credential-compromise"
    case credentialChangeRequired = "https://schemas.openid.net/secevent/risc/event-type/account-credential-change-required"
    case credentialChange = "https://schemas.openid.net/secevent/caep/event-type/credential-change"
    case tokensRevoked = "https://schemas.openid.net/secevent/oauth/event-type/tokens-revoked"
    case tokenRevoked = "https://schemas.openid.net/secevent/oauth/event-type/token-revoked"
    case identifierRecycled = "https://schemas.openid.net/secevent/risc/event-type/identifier-recycled"
    case identifierChanged = "https://schemas.openid.net/secevent/risc/event-type/identifier-changed"
    case profileChanged = "https://schemas.kakao.com/platevent/kakao/event-type/user-profile-changed"
    case userLinked = "https://schemas.openid.net/secevent/oauth/event-type/user-linked"
    case tokenIssued = "https://schemas.openid.net/secevent/oauth/event-type/token-issued"

    /// The type's last path segment (`sessions-revoked`), as the metric and the sandbox name it.
    public var name: String { String(rawValue.split(separator: "/").last ?? "") }

    public init?(name: String) {
        guard let type = Self.allCases.first(where: { $0.name == name || $0.rawValue == name }) else { return nil }
        self = type
    }
}

extension KakaoStandIn {
    /// The payload of a SET about `userID`: `iss`, `aud`, `iat`, `jti` and one event whose `subject` names the user.
    public static func securityEventPayload(
        type: String, userID: Int64, audience: String, jti: String = UUID().uuidString, issuedAt: Int64? = nil, reason: String? = nil
    ) -> [String: any Sendable] {
        var event: [String: any Sendable] = [
            "subject": ["subject_type": "iss-sub", "iss": "https://kauth.kakao.com", "sub": String(userID)] as [String: any Sendable],
        ]
        if let reason { event["reason"] = reason }
        return [
            "iss": "https://kauth.kakao.com", "aud": audience, "iat": issuedAt ?? Int64(Date().timeIntervalSince1970), "jti": jti,
            "events": [type: event] as [String: any Sendable],
        ]
    }

    /// A SET signed as Kakao signs it (`{"alg": "RS256", "typ": "secevent+jwt", "kid"}` with the current OIDC key), or
    /// with the header and signing the test chooses.
    public func securityEventToken(
        payload: [String: any Sendable], header: [String: any Sendable]? = nil, signing: IDTokenSigning = .current
    ) throws -> String {
        let header = try header ?? ["alg": "RS256", "typ": "secevent+jwt", "kid": oidcKeys.currentKID]
        return try oidcKeys.signIDToken(header: header, payload: payload, signing: signing)
    }
}

/// Where the sandbox's Kakao stand-in pushes SETs: `POST /sandbox/security-events?type=<name>&user_id=<id>` on the
/// stand-in signs one and sends it to the bridge, and answers with the bridge's status and body.
public final class SecurityEventPusher: Sendable {
    public let receiverURL: String
    public let audience: String
    private let kakao: KakaoStandIn
    private let http: CurlHTTPClient

    public init(kakao: KakaoStandIn, receiverURL: String, audience: String, http: CurlHTTPClient) {
        self.kakao = kakao
        self.receiverURL = receiverURL
        self.audience = audience
        self.http = http
    }

    /// Signs and sends one SET; the bridge's status and body.
    public func push(_ type: KakaoSecurityEventType, userID: Int64, reason: String? = nil) async throws -> (status: Int, body: String) {
        let set = try kakao.securityEventToken(
            payload: KakaoStandIn.securityEventPayload(type: type.rawValue, userID: userID, audience: audience, reason: reason)
        )
        let response = try await http.execute(CurlHTTP.HTTPRequest(
            method: .post, url: receiverURL, headers: [("Content-Type", "application/secevent+jwt")], body: Array(set.utf8),
            timeout: .seconds(10)
        ))
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    /// `POST /sandbox/security-events` on the Kakao stand-in.
    func answer(_ request: Request) async throws -> Response {
            let type = request.uri.queryParameters.get("type").flatMap(KakaoSecurityEventType.init(name:))
            let userID = request.uri.queryParameters.get("user_id").flatMap { Int64($0) }
            guard let type, let userID else {
                let names = KakaoSecurityEventType.allCases.map(\.name).joined(separator: ", ")
                return Response(
                    status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: "type= one of \(names); user_id= a Kakao user id\n"))
                )
            }
            let answer = try await push(type, userID: userID, reason: request.uri.queryParameters.get("reason"))
            return Response(
                status: .ok, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "sent \(type.name) for \(userID): the bridge answered \(answer.status) \(answer.body)\n"))
            )
    }
}
