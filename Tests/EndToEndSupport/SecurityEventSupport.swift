import BridgeJSON
import CurlHTTP
import BridgeSupport
import Foundation
import KakaoBridge
import StandIns

/// Kakao's security events in the test worlds (docs/api.md#kakaos-security-events): the configuration that turns them
/// on, and SETs signed as Kakao signs them.
package enum SecurityEventsOn {
    package static let audience = "test-rest-api-key"

    /// Security events on (with the backend's events URL when `notify`), on top of `options`.
    package static func options(
        _ options: TestWorld.Options = .init(), notify: Bool = true, _ change: @escaping @Sendable (inout BridgeConfig) -> Void = { _ in }
    ) -> TestWorld.Options {
        var options = options
        options.hook = true
        let previous = options.configure
        options.configure = { config in
            previous(&config)
            config.kakao.events.audiences = [audience]
            change(&config)
        }
        options.notifyEvents = notify
        return options
    }
}

extension TestWorld {
    /// POST /v1/kakao/events with `set` as the body.
    package func postSecurityEvent(_ set: String, contentType: String = "application/secevent+jwt") async throws -> Reply {
        Reply(try await http.execute(HTTPRequest(
            method: .post, url: bridge.baseURL + "/v1/kakao/events", headers: [("Content-Type", contentType)], body: Array(set.utf8)
        )))
    }

    /// A SET of one event about `userID`, signed with Kakao's current key, sent as Kakao sends it.
    package func securityEvent(
        _ type: KakaoSecurityEventType, userID: Int64, jti: String = UUID().uuidString, reason: String? = nil
    ) async throws -> Reply {
        let payload = KakaoStandIn.securityEventPayload(
            type: type.rawValue, userID: userID, audience: SecurityEventsOn.audience, jti: jti, reason: reason
        )
        return try await postSecurityEvent(try kakao.securityEventToken(payload: payload))
    }
}
