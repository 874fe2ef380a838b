import BridgeCommandLine
import BridgeJSON
import BridgeSupport
import CurlHTTP
import FoundationEssentials
import KakaoBridge
import StandIns

/// The demo's last act: the person unlinks the app in their Kakao settings, Kakao calls the bridge's unlink webhook, and
/// what that leaves behind (docs/api.md#kakaos-unlink-webhook).
extension DemoWalk {
    mutating func walkUnlink() async {
        let user = SandboxWorld.validUser
        let uid = world.config.kakao.uidPrefix + String(user.id)
        let kakao = world.standIns.kakao
        let backend = world.standIns.backend
        let noticesBefore = backend.unlinkNotices.count

        // An ID token Kakao issued before the person left: nothing about it changes at Kakao, only the webhook tells.
        let earlierLogin = await SandboxOIDC.login(world: world, bridgeURL: bridgeURL, user: user)
        try? await Task.sleep(for: .milliseconds(1100))  // issued in an earlier second than the webhook

        Console.out("Unlink: user \(user.id) unlinks the app in Kakao's settings, and Kakao calls the bridge's webhook")
        let revoked = kakao.unlink(userID: user.id)
        detail("Kakao", "unlinked the user: \(revoked) access token(s) of theirs stop working at Kakao")
        let form = "app_id=\(world.config.kakao.appID)&user_id=\(user.id)&referrer_type=UNLINK_FROM_APPS"
        detail("webhook", "POST \(bridgeURL)/v1/kakao/unlink   Authorization: KakaoAK …   \(form)")
        let request = CurlHTTP.HTTPRequest(
            method: .post, url: bridgeURL + "/v1/kakao/unlink",
            headers: [
                ("Authorization", "KakaoAK " + world.config.kakao.adminKey),
                ("Content-Type", "application/x-www-form-urlencoded"),
            ],
            body: Array(form.utf8), timeout: .seconds(10)
        )
        let status: Int
        do {
            status = try await http.execute(request).status
        } catch {
            failures.append("unlink: the webhook did not answer (\(error))")
            return
        }
        detail("answer", "\(status) (Kakao wants a 200 within 3 s)")

        let record = world.standIns.users.user(uid)
        let action = world.config.kakao.unlinkAction.rawValue
        detail("Firebase user", record.map {
            "\($0.uid): validSince \($0.validSince) (kakao.unlink_action: \(action): every session before now is revoked), "
                + "disabled \($0.disabled)"
        } ?? "(none)")
        let notices = backend.unlinkNotices.dropFirst(noticesBefore)
        detail("backend told", notices.first?.serializedString ?? "(nothing)")
        if status == 200, let record, record.validSince >= Int64(Date().timeIntervalSince1970) - 60, notices.count == 1 {
            Console.out("        ok")
        } else {
            Console.out("        FAILED")
            failures.append("unlink: expected 200, the Firebase user's sessions revoked and one notice at the backend")
        }
        Console.out("")

        let tokenInfoBefore = kakao.tokenInfoCalls
        Console.out("Refused: the unlinked user's Kakao token, which the bridge had cached as verified a moment ago")
        guard let answer = await get("/v1/token-exchange", token: world.tokens.valid) else { return }
        let code = answer.json?["code"]?.stringValue
        detail("answer", "\(answer.status) \(code ?? "")")
        detail("asked Kakao", "×\(kakao.tokenInfoCalls - tokenInfoBefore): the webhook dropped every cached verification of the user")
        if answer.status == 401, code == "invalid_kakao_token", kakao.tokenInfoCalls > tokenInfoBefore {
            Console.out("        ok: refused with 401 invalid_kakao_token")
        } else {
            Console.out("        FAILED")
            failures.append("unlink: expected the cached token to be checked with Kakao again and refused, got \(answer.status) \(code ?? "")")
        }
        Console.out("")

        guard let earlierLogin else { return }
        Console.out("Refused: a Kakao ID token of the user issued before the webhook (valid signature, unused nonce)")
        guard let refused = await get("/v1/token-exchange", token: earlierLogin.idToken) else { return }
        let idCode = refused.json?["code"]?.stringValue
        detail("answer", "\(refused.status) \(idCode ?? "")   \(refused.json?["detail"]?.stringValue ?? "")")
        if refused.status == 401, idCode == "invalid_kakao_id_token" {
            Console.out("        ok: refused with 401 invalid_kakao_id_token (the unlink is remembered for a day)")
        } else {
            Console.out("        FAILED")
            failures.append("unlink: expected the earlier ID token to be refused, got \(refused.status) \(idCode ?? "")")
        }
        Console.out("")
    }
}
