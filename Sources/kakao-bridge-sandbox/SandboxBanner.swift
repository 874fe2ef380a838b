import BridgeSupport
import KakaoBridge
import StandIns

/// What `sandbox` prints once the bridge listens: where everything is, the tokens, and commands to paste.
/// Full tokens on purpose: they only work against this process's stand-ins, and the curl lines need them.
enum SandboxBanner {
    static func lines(world: SandboxWorld, port: Int, oidc: SandboxOIDC.Login? = nil) -> [String] {
        let bridge = world.bridgeURL(port: port)
        let standIns = world.standIns
        let tokens = world.tokens
        let config = world.config
        let user = SandboxWorld.validUser
        let exchange = "\(bridge)/v1/token-exchange"
        let hook = "\(bridge)/v1/login-complete"
        let unlink = "\(bridge)/v1/kakao/unlink"
        let uid = config.kakao.uidPrefix + String(user.id)
        let unlinkFields = "app_id=\(config.kakao.appID)&user_id=\(user.id)&referrer_type=UNLINK_FROM_APPS"
        return [
            "kakao-bridge sandbox: the bridge listens on \(bridge) with all six steps on; Kakao, Google and the backend are local stand-ins.",
            "",
            "  bridge            \(bridge)   (config: \(world.defaultsSource) + generated values)",
            "  Kakao API         \(standIns.kakaoBaseURL)   (app id \(config.kakao.appID))",
            "  Naver API         \(standIns.naverBaseURL)   (client id \(config.naver.clientID))",
            "  LINE API          \(standIns.lineBaseURL)   (channel \(config.line.channelID))",
            "  Identity Toolkit  \(standIns.identityToolkitBaseURL)   (web API key \(standIns.webAPIKey))",
            "  certificates      \(standIns.certificatesURL)",
            "  backend           \(standIns.backendURL)   (confirms every login through the bridge's hook)",
        ] + signerLines(world: world) + [
            "  Admin API         \(standIns.identityToolkitBaseURL)/v1/projects/\(standIns.account.projectID)/accounts…   "
                + "(user records; firebase.user_sync: \(config.firebase.userSync.rawValue))",
            "",
            "Sandbox Kakao tokens (good for this run only):",
            "  valid      \(tokens.valid)   user \(user.id) \"\(user.nickname ?? "")\", \(user.email ?? "") (verified)",
            "  other app  \(tokens.otherApp)   issued to Kakao app \(SandboxWorld.otherAppID): refused, 401 kakao_app_mismatch",
            "  expired    \(tokens.expired)   refused, 401 invalid_kakao_token",
            "  disabled   \(tokens.disabled)   user \(SandboxWorld.disabledUser.id), whose Firebase user is disabled: refused, 403 user_disabled",
            "Sandbox Naver token: \(tokens.naver)   user \(SandboxWorld.naverUser.id) \"\(SandboxWorld.naverUser.nickname ?? "")\"",
            "Sandbox LINE tokens: access \(tokens.line)",
            "                     ID token \(tokens.lineIDToken)   user \(SandboxWorld.lineUser.userID) \"\(SandboxWorld.lineUser.displayName ?? "")\"",
            "",
            "Hook secret (backend -> POST /v1/login-complete, POST /v1/users/revoke): \(world.hookSecret)",
            "Kakao admin key (Kakao -> the unlink webhook): \(config.kakao.adminKey)",
            "",
            "Try it:",
            "  # steps 2-6: Kakao verifies, the bridge mints, Identity Toolkit signs in, the backend completes the login",
            "  curl -s -H 'Authorization: Bearer \(tokens.valid)' \(exchange)",
            "  # the Firebase user record that login created (Kakao nickname, picture, verified email), read from the Admin API",
            "  # stand-in through its Auth Emulator path, which takes `Bearer owner` as the emulator does",
            "  curl -s -X POST -H 'Authorization: Bearer owner' -H 'Content-Type: application/json' "
                + "-d '{\"localId\":[\"\(config.kakao.uidPrefix)\(user.id)\"]}' "
                + "\(standIns.identityToolkitBaseURL)/identitytoolkit.googleapis.com/v1/projects/\(standIns.account.projectID)/accounts:lookup",
            "  # the same six steps for a Naver login: uid \(config.naver.uidPrefix)<id>, \"provider\":\"naver\", no email written",
            "  curl -s -H 'Authorization: Bearer \(tokens.naver)' '\(exchange)?provider=naver'",
            "  # and a LINE login, with the access token (LINE's verify, then its profile) or the ID token (checked locally, ES256)",
            "  curl -s -H 'Authorization: Bearer \(tokens.line)' '\(exchange)?provider=line'",
            "  curl -s -H 'Authorization: Bearer \(tokens.lineIDToken)' '\(exchange)?provider=line'",
            "  # the legacy route apps in the field call (steps 2-3)",
            "  curl -s \(bridge)/v1/kakao/\(tokens.valid)",
            "  # refused: another app's token, an expired token",
            "  curl -s -H 'Authorization: Bearer \(tokens.otherApp)' \(exchange)",
            "  curl -s -H 'Authorization: Bearer \(tokens.expired)' \(exchange)",
            "  # refused: a user whose Firebase account is disabled",
            "  curl -s -H 'Authorization: Bearer \(tokens.disabled)' \(exchange)",
            "  # the hook, as the backend calls it: first take an ID token from a token exchange (needs jq), then confirm the user",
            "  ID_TOKEN=$(curl -s -H 'Authorization: Bearer \(tokens.valid)' \(exchange) | jq -r .firebase.id_token)",
            "  curl -s -X POST -H 'Authorization: Bearer \(world.hookSecret)' -H 'Content-Type: application/json' "
                + "-d '{\"kakao_token\":\"\(tokens.valid)\",\"token\":\"'\"$ID_TOKEN\"'\"}' \(hook)",
        ] + oidcLines(world: world, bridge: bridge, oidc: oidc) + [
            "  # \"log out everywhere\", as a backend without an Admin SDK does it: validSince = now for the user",
            "  curl -s -X POST -H 'Authorization: Bearer \(world.hookSecret)' -H 'Content-Type: application/json' "
                + "-d '{\"uid\":\"\(uid)\"}' \(bridge)/v1/users/revoke",
            "  # Kakao's unlink webhook, as Kakao calls it when the user unlinks the app (GET, or POST with a form body; last:",
            "  # after it, ID tokens of the user issued before it are refused):",
            "  # revokes the user's Firebase sessions (kakao.unlink_action: \(config.kakao.unlinkAction.rawValue)), drops their cached",
            "  # verifications and tells the backend; the accounts:lookup line above then shows the new validSince",
            "  curl -s -H 'Authorization: KakaoAK \(config.kakao.adminKey)' '\(unlink)?\(unlinkFields)'",
            "  curl -s -X POST -H 'Authorization: KakaoAK \(config.kakao.adminKey)' -d '\(unlinkFields)' \(unlink)",
            "  # Kakao's security events: the Kakao stand-in signs a SET and POSTs it to \(bridge)/v1/kakao/events (202). After",
            "  # sessions-revoked the user's sessions are revoked and the hook line above answers 401 id_token_revoked. Other",
            "  # types: account-disabled, account-enabled, identifier-recycled, token-revoked, user-profile-changed, user-unlinked, …",
            "  curl -s -X POST '\(world.standIns.kakaoBaseURL)/sandbox/security-events?type=sessions-revoked&user_id=\(user.id)'",
            "  # health",
            "  curl -s \(bridge)/readyz",
            "",
            "Ctrl-C stops the bridge, then the stand-ins. `kakao-bridge demo` walks the six steps for you.",
            "",
        ]
    }

    /// Who signs: the generated key file, or keyless the metadata and IAM stand-ins (`--signer iam`).
    private static func signerLines(world: SandboxWorld) -> [String] {
        let standIns = world.standIns
        guard let metadataURL = standIns.metadataURL, let iamURL = standIns.iamCredentialsURL else {
            return [
                "  service account   \(world.serviceAccountFile)   (generated: \(standIns.account.clientEmail))",
                "  token endpoint    \(standIns.googleTokenURL)   (the key file's token_uri: access tokens for the Admin API)",
            ]
        }
        return [
            "  signer            iam, no key file   (account \(standIns.account.clientEmail), project \(standIns.account.projectID), both from the metadata server)",
            "  metadata server   \(metadataURL)   (Metadata-Flavor: Google; access tokens for signBlob and the Admin API)",
            "  IAM Credentials   \(iamURL)   (signBlob: one call per custom token)",
        ]
    }

    /// Kakao OpenID Connect (docs/api.md#kakao-id-tokens): the nonce route, and an ID token of the valid user made with a
    /// nonce of this run, good for one login (the nonce is single-use).
    private static func oidcLines(world: SandboxWorld, bridge: String, oidc: SandboxOIDC.Login?) -> [String] {
        guard let audience = SandboxOIDC.audience(world.config) else { return [] }
        var lines = [
            "  # OpenID Connect (app key \(audience), JWKS \(world.standIns.kakaoJWKSURL)): a nonce for the Kakao SDK's login",
            "  curl -s \(bridge)/v1/kakao/nonce",
        ]
        if let oidc {
            lines += [
                "  # a Kakao ID token of user \(SandboxWorld.validUser.id), signed by the Kakao stand-in with a nonce of this run: steps 3-6",
                "  # with no call to Kakao (good for one login: its nonce is then used)",
                "  curl -s -H 'Authorization: Bearer \(oidc.idToken)' \(bridge)/v1/token-exchange",
            ]
        }
        return lines
    }
}
