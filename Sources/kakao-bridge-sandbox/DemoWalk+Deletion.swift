import BridgeCommandLine
import BridgeJSON
import BridgeSupport
import CurlHTTP
import KakaoBridge
import StandIns

/// The demo's end: the backend deletes each person's account (docs/api.md#deleting-an-account), as the App Store and
/// Google Play require, with the social login's link revoked: the Kakao user with the admin key (already unlinked by
/// the webhook above, so Kakao's -101 counts as done), the Naver and LINE users with their own tokens.
extension DemoWalk {
    mutating func walkDeletions() async {
        let standIns = world.standIns
        let kakaoUID = world.config.kakao.uidPrefix + String(SandboxWorld.validUser.id)
        await walkDeletion("Kakao", uid: kakaoUID, providerToken: nil)
        await walkDeletion(
            "Naver", uid: world.config.naver.uidPrefix + SandboxWorld.naverUser.id,
            providerToken: standIns.naver.issueToken(for: SandboxWorld.naverUser)
        )
        await walkDeletion(
            "LINE", uid: world.config.line.uidPrefix + SandboxWorld.lineUser.userID,
            providerToken: standIns.line.issueToken(for: SandboxWorld.lineUser)
        )
    }

    private mutating func walkDeletion(_ provider: String, uid: String, providerToken: String?) async {
        Console.out("Delete: the backend deletes the \(provider) user's account (POST /v1/users/delete)")
        var body = JSONWriter()
        body.openObject()
        body.key("uid")
        body.string(uid)
        if let providerToken {
            body.key("provider_token")
            body.string(providerToken)
        }
        body.closeObject()
        detail("request", "{\"uid\": \"\(uid)\"\(providerToken == nil ? "" : ", \"provider_token\": …")}")
        let request = CurlHTTP.HTTPRequest(
            method: .post, url: bridgeURL + "/v1/users/delete",
            headers: [("Authorization", "Bearer " + world.hookSecret), ("Content-Type", "application/json")],
            body: body.bytes, timeout: .seconds(10)
        )
        let answer: (status: Int, json: JSONValue?)
        do {
            let response = try await http.execute(request)
            answer = (response.status, JSONValue.parse(response.body))
        } catch {
            failures.append("delete \(provider): the bridge did not answer (\(error))")
            Console.out("")
            return
        }
        detail("answer", "\(answer.status) \(answer.json?["steps"].map { TokenDisplay.json($0.objectValue ?? [:]) } ?? "")")
        let gone = world.standIns.users.user(uid) == nil
        detail("Firebase user", gone ? "\(uid): deleted" : "\(uid): still there")
        detail("backend told", world.standIns.backend.unlinkNotices.last?.serializedString ?? "(nothing)")
        if answer.status == 200, gone, answer.json?["steps"]?["firebase_user"]?.stringValue == "done" {
            Console.out("        ok")
        } else {
            Console.out("        FAILED")
            failures.append("delete \(provider): expected 200 and the Firebase user gone, got \(answer.status)")
        }
        Console.out("")
    }
}
