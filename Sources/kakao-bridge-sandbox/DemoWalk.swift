import BridgeCommandLine
import BridgeJSON
import BridgeSupport
import CurlHTTP
import FoundationEssentials
import KakaoBridge
import StandIns

/// The demo's script: plays the app against a running sandbox, prints each of the six steps with what the stand-ins
/// saw, and records every step that did not behave. Every token goes through `TokenDisplay` before it is printed.
struct DemoWalk {
    let world: SandboxWorld
    let bridgeURL: String
    let http: CurlHTTPClient
    /// Set here, in `DemoWalk+OIDC.swift`, `DemoWalk+Providers.swift`, `DemoWalk+SecurityEvents.swift` and `DemoWalk+Unlink.swift`.
    var failures: [String] = []

    init(world: SandboxWorld, bridgeURL: String, http: CurlHTTPClient) {
        self.world = world
        self.bridgeURL = bridgeURL
        self.http = http
    }

    /// One bridge answer: status, JSON body when there is one, and the raw text for anything else.
    struct Answer {
        var status: Int
        var json: [String: JSONValue]?
        var text: String
    }

    mutating func run() async {
        let standIns = world.standIns
        Console.out("kakao-bridge demo: the sandbox runs in this process. Bridge \(bridgeURL); stand-ins for Kakao "
            + "\(standIns.kakaoBaseURL), Identity Toolkit \(standIns.identityToolkitBaseURL), certificates "
            + "\(standIns.certificatesServer.baseURL), backend \(standIns.backendServer.baseURL).")
        Console.out("")
        await walkSixSteps()
        await compareOIDCLogin()
        await walkNaverLogin()
        await walkLineLogin()
        await refused(
            "a token issued to another Kakao app (app \(SandboxWorld.otherAppID))",
            token: world.tokens.otherApp, expecting: "kakao_app_mismatch"
        )
        await refused("an expired token", token: world.tokens.expired, expecting: "invalid_kakao_token")
        await refused(
            "a user whose Firebase account is disabled (user \(SandboxWorld.disabledUser.id))", token: world.tokens.disabled,
            expecting: "user_disabled", status: 403
        )
        await walkSecurityEvent()
        // Near the end: it ends the valid user's Kakao login.
        await walkUnlink()
        // Last: every account of the demo deleted.
        await walkDeletions()
    }

    // MARK: The six steps

    private mutating func walkSixSteps() async {
        let user = SandboxWorld.validUser
        let token = world.tokens.valid
        let kakao = world.standIns.kakao
        let identityToolkit = world.standIns.identityToolkit
        let backend = world.standIns.backend

        heading(1, "the app holds a Kakao access token (Kakao Login on the phone)")
        detail("kakao token", "\(TokenDisplay.shorten(token))   user \(user.id) of Kakao app \(world.config.kakao.appID)")
        passed()

        let adminBefore = world.standIns.admin.totalCalls
        let tokenInfoBefore = kakao.tokenInfoCalls
        let userMeBefore = kakao.userMeCalls
        let acceptedBefore = identityToolkit.acceptedTokens
        backend.resetCounters()

        heading(2, "the app calls GET /v1/token-exchange; the bridge verifies the token with Kakao")
        detail("request", "GET \(bridgeURL)/v1/token-exchange   Authorization: Bearer \(TokenDisplay.shorten(token))")
        guard let answer = await get("/v1/token-exchange", token: token) else {
            fail(2, "GET /v1/token-exchange did not answer")
            notReached(from: 3)
            return
        }
        let tokenInfoCalls = kakao.tokenInfoCalls - tokenInfoBefore
        let userMeCalls = kakao.userMeCalls - userMeBefore
        detail("answer", "\(answer.status)")
        detail("asked Kakao", "GET /v1/user/access_token_info ×\(tokenInfoCalls) (whose token, which app), GET /v2/user/me ×\(userMeCalls) (the profile)")
        guard answer.status == 200, let body = answer.json else {
            detail("problem", TokenDisplay.redact(answer.text))
            if let hookStatus = backend.lastHookStatus {
                detail("hook", "the backend's POST /v1/login-complete was answered \(hookStatus)")
            }
            fail(2, "GET /v1/token-exchange answered \(answer.status) \(answer.json?["code"]?.stringValue ?? "") instead of 200")
            notReached(from: 3)
            return
        }
        let profile = body["kakao"]?.objectValue
        // Emails are shortened wherever the demo prints one: its output may be pasted anywhere.
        var shown = profile
        if let email = shown?["email"]?.stringValue { shown?["email"] = .string(Self.shortenEmail(email)) }
        detail("verified profile", shown.map(TokenDisplay.json) ?? "(none)")
        if profile?["id"]?.int64Value == user.id, tokenInfoCalls >= 1, userMeCalls >= 1 {
            passed()
        } else {
            fail(2, "expected Kakao to be asked (token info and profile) and the profile of user \(user.id)")
        }

        let uid = body["uid"]?.stringValue ?? ""
        heading(3, "the bridge mints a Firebase custom token for uid \(uid)")
        let customToken = body["custom_token"]?.stringValue ?? ""
        detail("custom_token", "\(TokenDisplay.shorten(customToken))   expires in \(body["custom_token_expires_in"]?.int64Value.map { "\($0)" } ?? "?") s")
        if let iam = world.standIns.iamCredentials {
            detail("signed by", "IAM signBlob (\(world.standIns.iamCredentialsURL ?? "")), \(iam.signed) blob(s) so far, "
                + "with an access token from the metadata server (\(world.standIns.metadataURL ?? "")): no key file, no kid")
        }
        if let decoded = TokenDisplay.decodeJWT(customToken) {
            detail("header", TokenDisplay.json(decoded.header))
            detail("claims", TokenDisplay.json(decoded.claims))
            let expectedUID = world.config.kakao.uidPrefix + String(user.id)
            // Keyless tokens name no key (docs/api.md#keyless-signing-on-google-cloud).
            let kidAsExpected = (decoded.header["kid"] == nil) == (world.standIns.iamCredentials != nil)
            if decoded.header["alg"]?.stringValue == "RS256", kidAsExpected, decoded.claims["uid"]?.stringValue == expectedUID,
               uid == expectedUID {
                passed()
            } else {
                fail(3, "expected an RS256 custom token for uid \(expectedUID)")
            }
        } else {
            fail(3, "custom_token is not a JWT")
        }

        showUserRecord(uid: uid, adminCalls: world.standIns.admin.totalCalls - adminBefore)

        let accepted = identityToolkit.acceptedTokens - acceptedBefore
        heading(4, "the bridge exchanges the custom token at Identity Toolkit (accounts:signInWithCustomToken)")
        detail("request", "POST \(world.standIns.identityToolkitBaseURL)\(IdentityToolkitStandIn.path)?key=…   {\"token\": custom_token, \"returnSecureToken\": true}")
        detail("Identity Toolkit", "checked the custom token as Google does (signature, iss/sub, aud, exp): accepted \(accepted)")
        if accepted == 1 {
            passed()
        } else {
            fail(4, "expected Identity Toolkit to accept exactly one custom token, it accepted \(accepted)"
                + (identityToolkit.lastRejection.map { " (last rejection: \($0))" } ?? ""))
        }

        heading(5, "Identity Toolkit answers with a Firebase session")
        let firebase = body["firebase"]?.objectValue
        let idToken = firebase?["id_token"]?.stringValue ?? ""
        let expiresIn = firebase?["expires_in"]?.int64Value ?? 0
        let isNewUser = firebase?["is_new_user"]?.boolValue
        detail("id_token", "\(TokenDisplay.shorten(idToken))   expires_in \(expiresIn)   is_new_user \(isNewUser.map { "\($0)" } ?? "?")")
        if let refresh = firebase?["refresh_token"]?.stringValue {
            detail("refresh_token", TokenDisplay.shorten(refresh))
        }
        if let claims = TokenDisplay.decodeJWT(idToken)?.claims {
            detail("ID token claims", TokenDisplay.json(claims))
        }
        if !idToken.isEmpty, expiresIn > 0, isNewUser != nil {
            passed()
        } else {
            fail(5, "expected firebase.id_token, a positive expires_in and is_new_user")
        }

        heading(6, "the bridge completes the login at the backend, which confirms the user through the bridge's hook")
        detail("request", "POST \(world.standIns.backendURL)   {\"kakao_token\": \(TokenDisplay.shorten(token)), \"token\": \(TokenDisplay.shorten(idToken))}")
        let login = body["login"]?.objectValue
        detail("backend answered", login.map(TokenDisplay.json) ?? "(no `login` in the answer)")
        let hookStatus = backend.lastHookStatus
        let hookAnswer = backend.lastHookAnswer
        var shownHookAnswer = hookAnswer?.objectValue
        if var kakao = shownHookAnswer?["kakao"]?.objectValue, let email = kakao["email"]?.stringValue {
            kakao["email"] = .string(Self.shortenEmail(email))
            shownHookAnswer?["kakao"] = .object(kakao)
        }
        detail(
            "hook",
            "backend -> POST \(bridgeURL)/v1/login-complete -> \(hookStatus.map { "\($0)" } ?? "no answer")   "
                + (shownHookAnswer.map(TokenDisplay.json) ?? TokenDisplay.redact(hookAnswer?.serializedString ?? ""))
        )
        if login?["status"]?.int64Value == 200, hookStatus == 200, hookAnswer?["uid"]?.stringValue == uid {
            passed()
        } else {
            fail(6, "expected the backend to answer 200 after the hook (POST /v1/login-complete) confirmed uid \(uid); "
                + "the hook answered \(hookStatus.map { "\($0)" } ?? "nothing")")
        }
    }

    // MARK: The Firebase user record

    /// What the user sync left in Firebase (between steps 2 and 3): shown from the stand-in's store as the Firebase
    /// console would, the email shortened (never printed whole).
    private mutating func showUserRecord(uid: String, adminCalls: Int) {
        let user = SandboxWorld.validUser
        Console.out("Firebase user record (user sync, firebase.user_sync: \(world.config.firebase.userSync.rawValue))")
        detail("Admin API", "\(adminCalls) call(s) (accounts:lookup, then accounts to create or accounts:update)")
        guard let record = world.standIns.users.user(uid) else {
            fail(3, "expected the user sync to create the Firebase user \(uid)")
            return
        }
        detail("uid", record.uid)
        detail("displayName", record.displayName ?? "(none)")
        detail("photoUrl", record.photoURL ?? "(none)")
        detail("email", "\(record.email.map(Self.shortenEmail) ?? "(none)")   emailVerified \(record.emailVerified)")
        detail("disabled", "\(record.disabled)")
        if record.displayName == user.nickname, record.photoURL == user.profileImageURL, record.emailVerified {
            passed()
        } else {
            fail(3, "expected the Firebase user to carry the Kakao nickname, picture and verified email")
        }
    }

    /// `r…@example.com`: enough to recognise, not enough to copy.
    static func shortenEmail(_ email: String) -> String {
        guard let at = email.firstIndex(of: "@") else { return "•••" }
        return String(email.prefix(1)) + "…" + String(email[at...])
    }

    // MARK: The refusals

    private mutating func refused(_ what: String, token: String, expecting code: String, status: Int = 401) async {
        Console.out("Refused: \(what)")
        detail("request", "GET \(bridgeURL)/v1/token-exchange   Authorization: Bearer \(TokenDisplay.shorten(token))")
        guard let answer = await get("/v1/token-exchange", token: token) else {
            failures.append("refusal (\(what)): the bridge did not answer")
            Console.out("")
            return
        }
        let answered = answer.json?["code"]?.stringValue
        detail("answer", "\(answer.status) \(answered ?? "")")
        detail("problem", answer.json.map(TokenDisplay.json) ?? TokenDisplay.redact(answer.text))
        if answer.status == status, answered == code {
            Console.out("        ok: refused with \(status) \(code)")
        } else {
            Console.out("        FAILED")
            failures.append("refusal (\(what)): expected \(status) \(code), got \(answer.status) \(answered ?? "")")
        }
        Console.out("")
    }

    // MARK: Plumbing

    mutating func get(_ path: String, token: String) async -> Answer? {
        let request = CurlHTTP.HTTPRequest(
            method: .get, url: bridgeURL + path, headers: [("Authorization", "Bearer " + token)], timeout: .seconds(20)
        )
        do {
            let response = try await http.execute(request)
            let json = JSONValue.parse(response.body)?.objectValue
            return Answer(status: response.status, json: json, text: String(decoding: response.body, as: UTF8.self))
        } catch {
            failures.append("\(path): \(error)")
            return nil
        }
    }

    func heading(_ step: Int, _ title: String) {
        Console.out("Step \(step)  \(title)")
    }

    func detail(_ label: String, _ value: String) {
        let padded = label.count < 17 ? label + String(repeating: " ", count: 17 - label.count) : label + " "
        Console.out("        " + padded + value)
    }

    func passed() {
        Console.out("        ok")
        Console.out("")
    }

    mutating func fail(_ step: Int, _ why: String) {
        Console.out("        FAILED: \(why)")
        Console.out("")
        failures.append("step \(step): \(why)")
    }

    private mutating func notReached(from step: Int) {
        for later in step...6 {
            Console.out("Step \(later)  not reached")
            failures.append("step \(later): not reached")
        }
        Console.out("")
    }
}
