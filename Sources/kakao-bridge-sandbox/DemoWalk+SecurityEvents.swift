import BridgeCommandLine
import BridgeJSON
import CurlHTTP
import FoundationEssentials
import StandIns

/// Kakao's security events in the demo (docs/api.md#kakaos-security-events): Kakao revokes the person's sessions, sends
/// the bridge a signed SET, and the next hook call with a Firebase ID token from before it is refused.
extension DemoWalk {
    mutating func walkSecurityEvent() async {
        let user = SandboxWorld.validUser
        guard let pusher = world.standIns.kakao.securityEventPusher else {
            failures.append("security events: the Kakao stand-in has nowhere to send them")
            return
        }
        Console.out("Security event: Kakao revokes the user's sessions and sends the bridge a SET; the next hook call is refused")
        guard let login = await get("/v1/token-exchange", token: world.tokens.valid),
              let idToken = login.json?["firebase"]?["id_token"]?.stringValue else {
            failures.append("security events: no Firebase ID token from the token exchange")
            return
        }
        let before = await hook(idToken: idToken)
        detail("hook", "POST \(bridgeURL)/v1/login-complete with the login's Firebase ID token -> \(before.map { "\($0.status)" } ?? "no answer")")
        // validSince counts whole seconds: the SET comes in a later second than the ID token was issued.
        try? await Task.sleep(for: .milliseconds(1100))
        let sent: (status: Int, body: String)
        do {
            sent = try await pusher.push(.sessionsRevoked, userID: user.id)
        } catch {
            failures.append("security events: the SET could not be sent (\(error))")
            return
        }
        detail("Kakao", "POST \(pusher.receiverURL)   Content-Type: application/secevent+jwt   (sessions-revoked for \(user.id), signed with Kakao's key)")
        detail("answer", "\(sent.status) (RFC 8935: 202 once verified and recorded)")
        let notices = world.standIns.backend.eventNotices
        detail("backend told", notices.last?.serializedString ?? "(nothing)")
        let after = await hook(idToken: idToken)
        let code = after?.json?["code"]?.stringValue
        detail("hook again", "the same ID token -> \(after.map { "\($0.status)" } ?? "no answer") \(code ?? "")")
        if before?.status == 200, sent.status == 202, after?.status == 401, code == "id_token_revoked" {
            Console.out("        ok: a session revoked at Kakao refuses the next hook call")
        } else {
            Console.out("        FAILED")
            failures.append("security events: expected hook 200, SET 202, hook 401 id_token_revoked; got \(before?.status ?? 0), \(sent.status), \(after?.status ?? 0) \(code ?? "")")
        }
        Console.out("")
    }

    private mutating func hook(idToken: String) async -> Answer? {
        var body = JSONWriter(capacity: 1024)
        body.openObject()
        body.key("kakao_token")
        body.string(world.tokens.valid)
        body.key("token")
        body.string(idToken)
        body.closeObject()
        let request = CurlHTTP.HTTPRequest(
            method: .post, url: bridgeURL + "/v1/login-complete",
            headers: [("Authorization", "Bearer " + world.hookSecret), ("Content-Type", "application/json")],
            body: body.bytes, timeout: .seconds(10)
        )
        do {
            let response = try await http.execute(request)
            return Answer(status: response.status, json: JSONValue.parse(response.body)?.objectValue, text: "")
        } catch {
            failures.append("security events: the hook did not answer (\(error))")
            return nil
        }
    }
}
