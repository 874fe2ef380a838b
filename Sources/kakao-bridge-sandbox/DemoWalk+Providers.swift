import BridgeCommandLine
import BridgeJSON
import BridgeSupport
import FoundationEssentials
import KakaoBridge
import StandIns

/// Naver beside Kakao (docs/api.md#providers): the same six steps with `?provider=naver`, the answer's `naver` object,
/// the user record without an email, the custom token's `provider` and `naver_id`, the backend's provider-shaped body
/// confirmed by the hook; then Naver's refusal that comes under HTTP 200.
extension DemoWalk {
    mutating func walkNaverLogin() async {
        let user = SandboxWorld.naverUser
        let naver = world.standIns.naver
        let backend = world.standIns.backend
        let token = world.tokens.naver
        Console.out("Naver: the same login with a Naver access token (GET /v1/token-exchange?provider=naver)")
        let callsBefore = naver.calls
        guard let answer = await get("/v1/token-exchange?provider=naver", token: token) else {
            failures.append("Naver: GET /v1/token-exchange?provider=naver did not answer")
            Console.out("")
            return
        }
        detail("answer", "\(answer.status)   asked Naver GET /v1/nid/me ×\(naver.calls - callsBefore)")
        guard answer.status == 200, let body = answer.json else {
            detail("problem", TokenDisplay.redact(answer.text))
            failures.append("Naver: expected 200, got \(answer.status) \(answer.json?["code"]?.stringValue ?? "")")
            Console.out("")
            return
        }
        var shown = body["naver"]?.objectValue
        if let email = shown?["email"]?.stringValue { shown?["email"] = .string(Self.shortenEmail(email)) }
        detail("naver", shown.map(TokenDisplay.json) ?? "(none)")
        let uid = body["uid"]?.stringValue ?? ""
        let expectedUID = world.config.naver.uidPrefix + user.id
        let claims = TokenDisplay.decodeJWT(body["custom_token"]?.stringValue ?? "")?.claims["claims"]
        detail("token claims", claims.map { TokenDisplay.json($0.objectValue ?? [:]) } ?? "(none)")
        let record = world.standIns.users.user(uid)
        detail("user record", "\(uid): displayName \(record?.displayName ?? "(none)"), email \(record?.email ?? "(none: Naver's email is never written)")")
        let hookAnswer = backend.lastHookAnswer
        detail("step 6", "backend got {\"provider\": \"\(backend.lastRequest?.provider ?? "?")\", \"provider_token\", \"token\"}; "
            + "its hook call was answered \(backend.lastHookStatus.map { "\($0)" } ?? "nothing")")
        if body["provider"]?.stringValue == "naver", uid == expectedUID, record != nil, record?.email == nil,
           claims?["naver_id"]?.stringValue == user.id, backend.lastRequest?.provider == "naver",
           backend.lastHookStatus == 200, hookAnswer?["uid"]?.stringValue == uid {
            Console.out("        ok")
        } else {
            Console.out("        FAILED")
            failures.append("Naver: expected uid \(expectedUID), the naver object, naver_id in the custom token, no email in Firebase and the hook's 200")
        }
        Console.out("")

        // Naver sometimes refuses a token with its 024 under HTTP 200: judged by `resultcode`, not the status.
        Console.out("Refused: a Naver token Naver no longer accepts, answered 024 under HTTP 200")
        naver.setFault(.resultcode("024", status: 200), times: 1)
        let refused = await get("/v1/token-exchange?provider=naver", token: naver.issueToken(for: user))
        let code = refused?.json?["code"]?.stringValue
        detail("answer", "\(refused?.status ?? 0) \(code ?? "")")
        if refused?.status == 401, code == "invalid_naver_token" {
            Console.out("        ok: refused with 401 invalid_naver_token")
        } else {
            Console.out("        FAILED")
            failures.append("Naver 024 under HTTP 200: expected 401 invalid_naver_token")
        }
        Console.out("")
    }
}

extension DemoWalk {
    /// LINE (docs/api.md#line-access-tokens, #line-id-tokens): the access token through LINE's verify and profile, the ID
    /// token checked locally (no call to LINE), then a token of another channel refused before any profile call.
    mutating func walkLineLogin() async {
        let line = world.standIns.line
        let user = SandboxWorld.lineUser
        Console.out("LINE: the same login with a LINE access token, then with a LINE ID token (GET /v1/token-exchange?provider=line)")
        for (label, token) in [("access token", world.tokens.line), ("ID token", world.tokens.lineIDToken)] {
            let verifyBefore = line.verifyCalls
            let profileBefore = line.profileCalls
            guard let answer = await get("/v1/token-exchange?provider=line", token: token) else {
                failures.append("LINE (\(label)): the bridge did not answer")
                continue
            }
            var shown = answer.json?["line"]?.objectValue
            if let email = shown?["email"]?.stringValue { shown?["email"] = .string(Self.shortenEmail(email)) }
            detail(label, "\(answer.status)   asked LINE verify ×\(line.verifyCalls - verifyBefore), profile ×\(line.profileCalls - profileBefore)   "
                + (shown.map(TokenDisplay.json) ?? TokenDisplay.redact(answer.text)))
            if answer.status == 200, answer.json?["uid"]?.stringValue == world.config.line.uidPrefix + user.userID,
               answer.json?["login"]?["status"]?.int64Value == 200 {
                Console.out("        ok")
            } else {
                Console.out("        FAILED")
                failures.append("LINE (\(label)): expected 200 for uid \(world.config.line.uidPrefix + user.userID)")
            }
        }
        let profileBefore = line.profileCalls
        let foreign = line.issueToken(for: user, channelID: "1999999999")
        let refused = await get("/v1/token-exchange?provider=line", token: foreign)
        let code = refused?.json?["code"]?.stringValue
        detail("other channel", "\(refused?.status ?? 0) \(code ?? "")   profile calls \(line.profileCalls - profileBefore)")
        if refused?.status == 401, code == "line_channel_mismatch", line.profileCalls == profileBefore {
            Console.out("        ok: refused with 401 line_channel_mismatch, no profile call")
        } else {
            Console.out("        FAILED")
            failures.append("LINE: a token of another channel must be 401 line_channel_mismatch with no profile call")
        }
        Console.out("")
    }
}
